import { join } from 'node:path';
import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IDomain } from 'aws-cdk-lib/aws-opensearchservice';
import { Construct } from 'constructs';
import type { VectorSearchSettings } from '../../lambdas/adapters/aws/opensearch-vector-search';
import type { EmbeddingSettings } from '../config';
import { ServiceFunction } from './service-function';

export interface VectorBackfillProps {
  readonly table: ITable;
  readonly searchDomain: IDomain;
  readonly indexReplicas: number;
  /** The k-NN graph of the indices it creates (lib/config.ts SearchDomainSettings.vectors). */
  readonly vectors: VectorSearchSettings;
  readonly embeddings: EmbeddingSettings;
  readonly projectRoot: string;
  readonly serviceName: string;
  readonly memorySizeMb: number;
  readonly logRetention: RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
  /** How often it runs. @default 15 minutes */
  readonly every?: Duration;
}

/**
 * Gives records the indexer wrote without a vector during an embedding outage their vector
 * (lambdas/handlers/backfill-vectors.ts), on a schedule: every 15 minutes by default, so semantic
 * search finds them again within a quarter of an hour of the model's return.
 */
export class VectorBackfill extends Construct {
  readonly function: ServiceFunction;
  readonly schedule: Rule;

  constructor(scope: Construct, id: string, props: VectorBackfillProps) {
    super(scope, id);
    this.function = new ServiceFunction(this, 'Function', {
      entry: join(props.projectRoot, 'lambdas/handlers/backfill-vectors.ts'),
      description: 'Vector backfill: records indexed without a vector during an embedding outage -> their vector (lambdas/handlers/backfill-vectors.ts)',
      serviceName: props.serviceName,
      memorySizeMb: props.memorySizeMb,
      timeout: Duration.minutes(5),
      logRetention: props.logRetention,
      logRemovalPolicy: props.logRemovalPolicy,
      projectRoot: props.projectRoot,
    })
      .bindRecordReader(props.table)
      .bindVectorBacklogConsumer(props.table)
      .bindEmbeddingCache(props.table)
      .bindEmbeddings(props.embeddings)
      .bindSearchDomainWriter(props.searchDomain, props.indexReplicas, props.vectors);

    this.schedule = new Rule(this, 'Schedule', {
      description: 'Vector backfill of records indexed during an embedding outage',
      schedule: Schedule.rate(props.every ?? Duration.minutes(15)),
      // A missed run is made up by the next one.
      targets: [new LambdaFunction(this.function.lambdaFunction, { retryAttempts: 0 })],
    });
  }
}
