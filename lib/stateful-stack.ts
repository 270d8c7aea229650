import { CfnOutput, CfnResource, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { AttributeType, BillingMode, type CfnTable, type ITable, ProjectionType, StreamViewType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { IDomain } from 'aws-cdk-lib/aws-opensearchservice';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { type CfnQueue, type IQueue, Queue, QueueEncryption, type QueueProps } from 'aws-cdk-lib/aws-sqs';
import { AwsCustomResource } from 'aws-cdk-lib/custom-resources';
import type { Construct } from 'constructs';
import { FUNDER_INDEX } from '../lambdas/adapters/aws/records-table';
import { indexReplicasOf, type StageConfig } from './config';
import { ApiDomain } from './constructs/api-domain';
import { CursorKeySecret } from './constructs/cursor-key-secret';
import { DashboardIdentity } from './constructs/dashboard-identity';
import { DashboardSite } from './constructs/dashboard-site';
import { SearchDomain } from './constructs/search-domain';
import { WebhookSecretKey } from './constructs/webhook-secret-key';
import { STACK_OUTPUTS } from './stack-names';
import {
  WEBHOOK_DEAD_LETTER_RETENTION_SECONDS,
  WEBHOOK_MAX_RECEIVES,
  WEBHOOK_QUEUE_RETENTION_SECONDS,
  WEBHOOK_SENDER_TIMEOUT_SECONDS,
  WEBHOOK_VISIBILITY_TIMEOUT_SECONDS,
} from './webhook-queue-settings';

/** Logical IDs of the stateful resources; changing one replaces (and empties) the resource. */
export const STATEFUL_LOGICAL_IDS = {
  recordsTable: 'RecordsTable',
  searchDomain: 'SearchDomain',
  indexerFailureQueue: 'IndexerFailureQueue',
  webhookQueue: 'WebhookQueue',
  webhookDeadLetterQueue: 'WebhookDeadLetterQueue',
  apiDomainName: 'ApiDomainName',
  dashboardUserPool: 'DashboardUserPool',
} as const;

/** The webhook sender's Lambda timeout; the queue's visibility timeout is six times it (lib/webhook-queue-settings.ts). */
export const WEBHOOK_SENDER_TIMEOUT = Duration.seconds(WEBHOOK_SENDER_TIMEOUT_SECONDS);
export { WEBHOOK_MAX_RECEIVES };

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
  /** Stream batches the indexer or the webhook fan-out could not process after their retries (pointers into the stream, for replay). */
  readonly indexerFailureQueue: IQueue;
  /** Webhook deliveries to attempt (message: the delivery id), delayed for retries. */
  readonly webhookQueue: IQueue;
  /** Deliveries that failed every attempt (the sender puts them here) or could not be processed at all (redrive). */
  readonly webhookDeadLetterQueue: IQueue;
  /** The list cursors' signing key (deep paging). */
  readonly cursorKeySecret: ISecret;
  /** The KMS key sealing webhook signing secrets, with the principal tag of the roles that may use it. */
  readonly webhookSecretKey: WebhookSecretKey;
  /** The customers' host name for the API, when the stage has one (config `api.customDomain`). */
  readonly apiDomain?: ApiDomain;
  /** Who may sign in to the developer dashboard (Cognito), and the site it is served from. */
  readonly dashboardIdentity: DashboardIdentity;
  readonly dashboardSite: DashboardSite;

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

    /** An encrypted, TLS-only queue under its pinned logical ID, kept with the stage's data. */
    const durableQueue = (logicalId: string, props: QueueProps) => {
      const queue = new Queue(this, logicalId, {
        ...props,
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        removalPolicy: config.statefulRemovalPolicy,
      });
      (queue.node.defaultChild as CfnQueue).overrideLogicalId(logicalId);
      return queue;
    };

    this.indexerFailureQueue = durableQueue(STATEFUL_LOGICAL_IDS.indexerFailureQueue, { retentionPeriod: Duration.days(14) });
    new CfnOutput(this, STACK_OUTPUTS.indexerFailureQueueUrl, {
      description: 'Table stream batches the indexer or the webhook fan-out gave up on (admin CLI: npm run admin -- status --target aws)',
      value: this.indexerFailureQueue.queueUrl,
    });
    const webhookDeadLetterQueue = durableQueue(STATEFUL_LOGICAL_IDS.webhookDeadLetterQueue, {
      retentionPeriod: Duration.seconds(WEBHOOK_DEAD_LETTER_RETENTION_SECONDS),
    });
    this.webhookDeadLetterQueue = webhookDeadLetterQueue;
    const webhookQueue = durableQueue(STATEFUL_LOGICAL_IDS.webhookQueue, {
      visibilityTimeout: Duration.seconds(WEBHOOK_VISIBILITY_TIMEOUT_SECONDS),
      retentionPeriod: Duration.seconds(WEBHOOK_QUEUE_RETENTION_SECONDS),
      deadLetterQueue: { queue: webhookDeadLetterQueue, maxReceiveCount: WEBHOOK_MAX_RECEIVES },
    });
    this.webhookQueue = webhookQueue;
    new CfnOutput(this, STACK_OUTPUTS.webhookQueueUrl, {
      description: 'The webhook queue (admin CLI: npm run admin -- webhooks replay --target aws)',
      value: webhookQueue.queueUrl,
    });
    new CfnOutput(this, STACK_OUTPUTS.webhookDeadLetterQueueUrl, {
      description: 'Webhook deliveries that failed every attempt (replay them with admin webhooks replay --target aws)',
      value: webhookDeadLetterQueue.queueUrl,
    });

    this.searchDomain = new SearchDomain(this, 'Search', {
      settings: config.search,
      removalPolicy: config.statefulRemovalPolicy,
      logicalId: STATEFUL_LOGICAL_IDS.searchDomain,
    }).domain;
    this.retainCustomResourceLogs(config);

    this.cursorKeySecret = new CursorKeySecret(this, 'CursorKey', { removalPolicy: config.statefulRemovalPolicy }).secret;

    this.webhookSecretKey = new WebhookSecretKey(this, 'WebhookSecrets', {
      principalTagValue: `${config.serviceName}-${config.stage}`,
      removalPolicy: config.statefulRemovalPolicy,
    });
    new CfnOutput(this, STACK_OUTPUTS.webhookSecretKeyArn, {
      description: 'The KMS key sealing webhook secrets (admin CLI: webhooks add|rotate-secret --target aws, under a role tagged for it)',
      value: this.webhookSecretKey.key.keyArn,
    });

    if (config.api.customDomain) {
      this.apiDomain = new ApiDomain(this, 'ApiDomain', {
        settings: config.api.customDomain,
        removalPolicy: config.statefulRemovalPolicy,
        logicalId: STATEFUL_LOGICAL_IDS.apiDomainName,
      });
      new CfnOutput(this, STACK_OUTPUTS.apiDomainTarget, {
        description: `Point ${config.api.customDomain.domainName} here (CNAME or alias) unless the stage names its Route 53 zone`,
        value: this.apiDomain.domainName.domainNameAliasDomainName,
      });
    }

    this.dashboardSite = new DashboardSite(this, 'DashboardSite', {
      connectOrigins: [
        // The REST API lives in the stateless stack, which reads this one: its host is not known here.
        `https://*.execute-api.${this.region}.${this.urlSuffix}`,
        ...(this.apiDomain ? [`https://${this.apiDomain.hostName}`] : []),
        `https://cognito-idp.${this.region}.${this.urlSuffix}`,
        `https://${config.dashboard.domainPrefix}.auth.${this.region}.amazoncognito.com`,
      ],
      signInOrigin: `https://${config.dashboard.domainPrefix}.auth.${this.region}.amazoncognito.com`,
      priceClass: config.dashboard.priceClass,
      removalPolicy: config.statefulRemovalPolicy,
      logRetention: config.functions.logRetention,
    });
    this.dashboardIdentity = new DashboardIdentity(this, 'DashboardIdentity', {
      settings: config.dashboard,
      dashboardUrl: this.dashboardSite.baseUrl,
      userPoolName: `${config.serviceName}-${config.stage}-dashboard`,
      userPoolLogicalId: STATEFUL_LOGICAL_IDS.dashboardUserPool,
      removalPolicy: config.statefulRemovalPolicy,
      deletionProtection: !config.ephemeral,
    });
    this.dashboardIdentity.addOutputs({
      userPoolId: STACK_OUTPUTS.dashboardUserPoolId,
      clientId: STACK_OUTPUTS.dashboardClientId,
      issuer: STACK_OUTPUTS.dashboardIssuer,
      signInUrl: STACK_OUTPUTS.dashboardSignInUrl,
    });
    new CfnOutput(this, STACK_OUTPUTS.dashboardUrl, { description: 'The developer dashboard', value: `${this.dashboardSite.baseUrl}/` });

    new CfnOutput(this, STACK_OUTPUTS.searchDomainEndpoint, {
      description: 'The search domain endpoint (admin CLI: npm run admin -- reindex --target aws)',
      value: this.searchDomain.domainEndpoint,
    });
    new CfnOutput(this, STACK_OUTPUTS.searchIndexReplicas, {
      description: 'Replicas of each search index: one per extra zone (admin CLI: npm run admin -- reindex --target aws --rebuild)',
      value: String(indexReplicasOf(config.search)),
    });
    new CfnOutput(this, STACK_OUTPUTS.searchVectorSettings, {
      description: 'The k-NN graph of new search indices and the window searches rank, JSON (admin CLI: npm run admin -- reindex --target aws --rebuild)',
      value: JSON.stringify(config.search.vectors),
    });
  }

  /**
   * The domain's access and log policies are applied by CDK's shared AwsCustomResource function,
   * which would log to an implicit group kept forever: give it one with the stage's retention.
   */
  private retainCustomResourceLogs(config: StageConfig): void {
    const provider = this.node.tryFindChild(`AWS${AwsCustomResource.PROVIDER_FUNCTION_UUID.replace(/-/g, '')}`);
    if (!(provider instanceof LambdaFunction)) return;
    const logs = new LogGroup(this, 'CustomResourceLogs', {
      logGroupName: `/aws/lambda/${provider.functionName}`,
      retention: config.functions.logRetention,
      removalPolicy: config.statefulRemovalPolicy,
    });
    // The group must exist before the function's first run would create it without a retention.
    for (const resource of this.node.findAll()) {
      if (resource instanceof CfnResource && resource.cfnResourceType.startsWith('Custom::')) resource.node.addDependency(logs);
    }
  }
}
