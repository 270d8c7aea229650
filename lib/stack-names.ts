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
  /** On the stateful stack: the webhook queue and its dead-letter queue, for `admin webhooks replay --target aws`. */
  webhookQueueUrl: 'WebhookQueueUrl',
  webhookDeadLetterQueueUrl: 'WebhookDeadLetterQueueUrl',
  /** On the stateless stack: the Bedrock model and vector length the search index is built with. */
  embeddingModel: 'EmbeddingModel',
  embeddingDimensions: 'EmbeddingDimensions',
  /** On the stateless stack: the interface's {base_url}. */
  apiBaseUrl: 'ApiBaseUrl',
} as const;

/** On the stateless stack: a tier's usage plan id, e.g. `UsagePlanBasic`. */
export function usagePlanOutputOf(tier: string): string {
  return `UsagePlan${tier.charAt(0).toUpperCase()}${tier.slice(1)}`;
}
