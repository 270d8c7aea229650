import { join } from 'node:path';
import { CustomResource, Duration, type RemovalPolicy } from 'aws-cdk-lib';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IDomain } from 'aws-cdk-lib/aws-opensearchservice';
import { Provider } from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { MAPPING_VERSION } from '../../lambdas/adapters/aws/opensearch-mappings';
import type { VectorSearchSettings } from '../../lambdas/adapters/aws/opensearch-vector-search';
import type { EmbeddingSettings } from '../config';
import { ServiceFunction } from './service-function';

export interface SearchIndexBootstrapProps {
  readonly searchDomain: IDomain;
  /** Replicas of each index it creates: one per extra zone of the domain (lib/config.ts indexReplicasOf). */
  readonly indexReplicas: number;
  /** The k-NN graph of the indices it creates (lib/config.ts SearchDomainSettings.vectors). */
  readonly vectors: VectorSearchSettings;
  readonly embeddings: EmbeddingSettings;
  readonly projectRoot: string;
  readonly serviceName: string;
  readonly logRetention: RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
}

/**
 * Creates the search indices (versioned index behind each alias, with the k-NN mapping in the
 * configured vector space) at deploy time, where missing. It runs again whenever the embedder, the
 * dimensions or the mapping version change: it adds a new version's fields to existing indices,
 * and fails the deployment if they hold vectors of another space, naming the rebuild command, so
 * no function ever queries mismatched vectors.
 */
export class SearchIndexBootstrap extends Construct {
  readonly function: ServiceFunction;
  readonly resource: CustomResource;

  constructor(scope: Construct, id: string, props: SearchIndexBootstrapProps) {
    super(scope, id);
    this.function = new ServiceFunction(this, 'Function', {
      entry: join(props.projectRoot, 'lambdas/handlers/bootstrap-search-index.ts'),
      description: 'Deploy-time bootstrap of the search indices and aliases (lambdas/handlers/bootstrap-search-index.ts)',
      serviceName: props.serviceName,
      memorySizeMb: 256,
      timeout: Duration.minutes(2),
      logRetention: props.logRetention,
      logRemovalPolicy: props.logRemovalPolicy,
      projectRoot: props.projectRoot,
    }).bindSearchDomainWriter(props.searchDomain, props.indexReplicas, props.vectors);

    const provider = new Provider(this, 'Provider', {
      onEventHandler: this.function.lambdaFunction,
      logGroup: new LogGroup(this, 'ProviderLogs', { retention: props.logRetention, removalPolicy: props.logRemovalPolicy }),
    });
    this.resource = new CustomResource(this, 'Indices', {
      serviceToken: provider.serviceToken,
      resourceType: 'Custom::SearchIndices',
      properties: {
        Embedder: `bedrock:${props.embeddings.model}`,
        Dimensions: String(props.embeddings.dimensions),
        // A release that adds index fields raises it, so the bootstrap runs and puts them into the mappings.
        MappingVersion: String(MAPPING_VERSION),
      },
    });
  }
}
