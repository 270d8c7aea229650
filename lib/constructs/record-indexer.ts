import { join } from 'node:path';
import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IDomain } from 'aws-cdk-lib/aws-opensearchservice';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { VectorSearchSettings } from '../../lambdas/adapters/aws/opensearch-vector-search';
import type { EmbeddingSettings } from '../config';
import { ServiceFunction } from './service-function';

export interface RecordIndexerProps {
  readonly table: ITable;
  readonly searchDomain: IDomain;
  /** Replicas of each index it creates: one per extra zone of the domain (lib/config.ts indexReplicasOf). */
  readonly indexReplicas: number;
  /** The k-NN graph of the indices it creates (lib/config.ts SearchDomainSettings.vectors). */
  readonly vectors: VectorSearchSettings;
  /** Records are embedded at index time with this model (vectors cached in the table by text hash). */
  readonly embeddings: EmbeddingSettings;
  /** Where stream batches go (as pointers) once retries are exhausted, for replay. */
  readonly failureQueue: IQueue;
  readonly projectRoot: string;
  readonly serviceName: string;
  readonly memorySizeMb: number;
  readonly logRetention: RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
  /** @default 100 */
  readonly batchSize?: number;
  /** @default 10 */
  readonly retryAttempts?: number;
  /** @default 1 day: a stream record older than this goes to the failure queue instead of blocking its shard. */
  readonly maxRecordAge?: Duration;
}

/** Stream records of these items only: records, not change events or (later) keys and webhooks. */
const RECORD_ITEMS_ONLY = FilterCriteria.filter({ dynamodb: { Keys: { sk: { S: FilterRule.isEqual('record') } } } });

/**
 * The change feed in AWS: the records table's stream drives the indexer Lambda, which upserts into
 * the search domain (with each record's embedding) and appends created/updated events to the outbox. It reports partial batch
 * failures, bisects a failing batch to isolate the bad record, and sends what still fails after
 * the retries to the failure queue so the shard moves on.
 */
export class RecordIndexer extends Construct {
  readonly function: ServiceFunction;

  constructor(scope: Construct, id: string, props: RecordIndexerProps) {
    super(scope, id);
    this.function = new ServiceFunction(this, 'Function', {
      entry: join(props.projectRoot, 'lambdas/handlers/index-record-changes.ts'),
      description: 'Indexer: records table stream -> search index and change outbox (lambdas/handlers/index-record-changes.ts)',
      serviceName: props.serviceName,
      memorySizeMb: props.memorySizeMb,
      timeout: Duration.minutes(1),
      logRetention: props.logRetention,
      logRemovalPolicy: props.logRemovalPolicy,
      projectRoot: props.projectRoot,
    })
      .bindIndexerOutputs(props.table)
      .bindEmbeddingCache(props.table)
      .bindEmbeddings(props.embeddings)
      .bindSearchDomainWriter(props.searchDomain, props.indexReplicas, props.vectors);

    this.function.lambdaFunction.addEventSource(
      new DynamoEventSource(props.table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: props.batchSize ?? 100,
        maxBatchingWindow: Duration.seconds(1),
        reportBatchItemFailures: true,
        bisectBatchOnError: true,
        retryAttempts: props.retryAttempts ?? 10,
        maxRecordAge: props.maxRecordAge ?? Duration.days(1),
        onFailure: new SqsDlq(props.failureQueue),
        filters: [RECORD_ITEMS_ONLY],
      }),
    );
  }
}
