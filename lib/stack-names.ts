/**
 * Stack names and output keys, shared by the CDK app and the tools that find a deployed stage
 * (the admin CLI). Free of CDK imports so the CLI starts quickly.
 */
export function stackNamesOf(stage: string): { stateful: string; stateless: string } {
  const prefix = `Gcf-${stage}`;
  return { stateful: `${prefix}-Stateful`, stateless: `${prefix}-Stateless` };
}

export const STACK_OUTPUTS = {
  /** On the stateful stack: the records table the admin CLI writes to. */
  recordsTableName: 'RecordsTableName',
  /** On the stateful stack: the search domain's endpoint (host name), for `admin reindex --target aws`. */
  searchDomainEndpoint: 'SearchDomainEndpoint',
  /** On the stateful stack: the replicas each index gets, for `admin reindex --target aws --rebuild`. */
  searchIndexReplicas: 'SearchIndexReplicas',
  /** On the stateful stack: the k-NN graph and window of the indices (JSON), for `admin reindex --target aws --rebuild`. */
  searchVectorSettings: 'SearchVectorSettings',
  /** On the stateful stack: the webhook queue and its dead-letter queue, for `admin webhooks replay --target aws`. */
  webhookQueueUrl: 'WebhookQueueUrl',
  webhookDeadLetterQueueUrl: 'WebhookDeadLetterQueueUrl',
  /** On the stateful stack: stream batches the indexer or fan-out gave up on, for `admin status --target aws`. */
  indexerFailureQueueUrl: 'IndexerFailureQueueUrl',
  /** On the stateful stack: the KMS key sealing webhook signing secrets, for `admin webhooks add|rotate-secret --target aws`. */
  webhookSecretKeyArn: 'WebhookSecretKeyArn',
  /** On the stateful stack, with a custom domain: the API Gateway host name its DNS record points to. */
  apiDomainTarget: 'ApiDomainTarget',
  /** On the stateful stack: the developer dashboard's URL, user pool, app client, OIDC issuer and managed login. */
  dashboardUrl: 'DashboardUrl',
  dashboardUserPoolId: 'DashboardUserPoolId',
  dashboardClientId: 'DashboardClientId',
  dashboardIssuer: 'DashboardIssuer',
  dashboardSignInUrl: 'DashboardSignInUrl',
  /** On the stateless stack: the Bedrock model and vector length the search index is built with. */
  embeddingModel: 'EmbeddingModel',
  embeddingDimensions: 'EmbeddingDimensions',
  /** On the stateless stack: the interface's {base_url} (on the custom domain when the stage has one). */
  apiBaseUrl: 'ApiBaseUrl',
  /** On the stateless stack: the SNS topic paging alarms notify; `admin status` keeps the alarms that notify it or the ticket topic. */
  alarmTopicArn: 'AlarmTopicArn',
  /** On the stateless stack: the SNS topic ticket alarms notify. */
  ticketAlarmTopicArn: 'TicketAlarmTopicArn',
  /** On the stateless stack: the stage's monitoring name (monitoringNameOf), the dashboard's name and every alarm name's prefix. */
  dashboardName: 'DashboardName',
  /** On the stateless stack: the synthetic canary's key secret, which `admin canary provision` fills. */
  canaryKeySecretArn: 'CanaryKeySecretArn',
  /** On the stateless stack: the indexer Lambda, whose stream IteratorAge `admin status` reads. */
  indexerFunctionName: 'IndexerFunctionName',
} as const;

/**
 * The name of a stage's dashboard and the prefix of its alarm names (`<prefix>-<anchor>`): the
 * service name, which is also the metrics' `service` dimension, then the stage.
 */
export function monitoringNameOf(serviceName: string, stage: string): string {
  return `${serviceName}-${stage}`;
}

/** The service name inside a stage's monitoring name (the inverse of monitoringNameOf); null if it is not one. */
export function serviceNameOf(monitoringName: string, stage: string): string | null {
  const suffix = `-${stage}`;
  return monitoringName.endsWith(suffix) && monitoringName.length > suffix.length ? monitoringName.slice(0, -suffix.length) : null;
}
