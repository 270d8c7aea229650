import { CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { type CfnQueue, type IQueue, Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import {
  AttributeType,
  BillingMode,
  ProjectionType,
  type CfnTable,
  StreamViewType,
  Table,
  TableEncryption,
  type ITable,
} from 'aws-cdk-lib/aws-dynamodb';
import type { IDomain } from 'aws-cdk-lib/aws-opensearchservice';
import type { Construct } from 'constructs';
import type { StageConfig } from './config';
import { FUNDER_INDEX } from '../lambdas/adapters/aws/records-table';
import { SearchDomain } from './constructs/search-domain';
import { STACK_OUTPUTS } from './stack-names';

/** Logical IDs of the stateful resources; changing one replaces (and empties) the resource. */
export const STATEFUL_LOGICAL_IDS = {
  recordsTable: 'RecordsTable',
  searchDomain: 'SearchDomain',
  indexerFailureQueue: 'IndexerFailureQueue',
} as const;

/** DynamoDB attribute names the record store adapter relies on. */
export const RECORDS_TABLE_KEYS = {
  partitionKey: 'pk',
  sortKey: 'sk',
  timeToLive: 'expires_at',
  funderIndex: FUNDER_INDEX,
} as const;

export interface StatefulStackProps extends StackProps {
  readonly config: StageConfig;
}

/** Everything that holds data: kept apart so the stateless stack can be replaced freely. */
export class StatefulStack extends Stack {
  readonly recordsTable: ITable;
  readonly searchDomain: IDomain;
  /** Stream batches the indexer could not process after its retries (pointers into the stream, for replay). */
  readonly indexerFailureQueue: IQueue;

  constructor(scope: Construct, id: string, props: StatefulStackProps) {
    super(scope, id, props);
    const { config } = props;

    const table = new Table(this, 'RecordsTable', {
      partitionKey: { name: RECORDS_TABLE_KEYS.partitionKey, type: AttributeType.STRING },
      sortKey: { name: RECORDS_TABLE_KEYS.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      // The indexer and change events need both images to tell created from updated.
      stream: StreamViewType.NEW_AND_OLD_IMAGES,
      timeToLiveAttribute: RECORDS_TABLE_KEYS.timeToLive,
      encryption: TableEncryption.AWS_MANAGED,
      deletionProtection: !config.ephemeral,
      removalPolicy: config.statefulRemovalPolicy,
    });
    // Sparse: only funder items carry the key, so an import reads the funder directory from it
    // instead of scanning every record (lambdas/adapters/aws/records-table.ts, FUNDER_INDEX).
    table.addGlobalSecondaryIndex({
      indexName: RECORDS_TABLE_KEYS.funderIndex.name,
      partitionKey: { name: RECORDS_TABLE_KEYS.funderIndex.partitionKey, type: AttributeType.STRING },
      projectionType: ProjectionType.ALL,
    });
    (table.node.defaultChild as CfnTable).overrideLogicalId(STATEFUL_LOGICAL_IDS.recordsTable);
    this.recordsTable = table;
    new CfnOutput(this, STACK_OUTPUTS.recordsTableName, {
      description: 'The records table (admin CLI: npm run admin -- ingest --target aws)',
      value: table.tableName,
    });

    const failureQueue = new Queue(this, 'IndexerFailureQueue', {
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      removalPolicy: config.statefulRemovalPolicy,
    });
    (failureQueue.node.defaultChild as CfnQueue).overrideLogicalId(STATEFUL_LOGICAL_IDS.indexerFailureQueue);
    this.indexerFailureQueue = failureQueue;

    this.searchDomain = new SearchDomain(this, 'Search', {
      settings: config.search,
      removalPolicy: config.statefulRemovalPolicy,
      logicalId: STATEFUL_LOGICAL_IDS.searchDomain,
    }).domain;
    new CfnOutput(this, STACK_OUTPUTS.searchDomainEndpoint, {
      description: 'The search domain endpoint (admin CLI: npm run admin -- reindex --target aws)',
      value: this.searchDomain.domainEndpoint,
    });
  }
}
