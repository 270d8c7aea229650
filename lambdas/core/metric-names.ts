/**
 * The CloudWatch metrics the functions emit (Powertools Metrics, EMF) and the dashboard and alarms
 * read (lib/constructs). One list, so a renamed metric cannot leave an alarm watching nothing.
 */

export const METRICS_NAMESPACE = 'GcfDataService';

/** Dimensions: `service` is POWERTOOLS_SERVICE_NAME on every metric; these are added per metric. */
export const METRIC_DIMENSIONS = {
  /** The API route, e.g. `GET /grants-api/{id}`. */
  route: 'route',
  /** keyword | semantic | hybrid. */
  searchMode: 'mode',
  /** A webhook subscription's id. */
  subscription: 'subscription',
} as const;

export const METRIC_NAMES = {
  /** Per route: every response (Count). */
  requests: 'Requests',
  /** Per route: 5xx responses (Count). */
  errors: 'Errors',
  /** Per route: handler latency (Milliseconds). */
  latency: 'Latency',
  /** Per search mode: time to rank results (Milliseconds). */
  searchLatency: 'SearchLatency',
  /** Requests refused for the daily quota or the tier's request rate, 429 RATE_LIMITED (Count). */
  quotaRejections: 'QuotaRejections',
  /** Time to embed a query or a batch of records (Milliseconds). */
  embeddingLatency: 'EmbeddingLatency',
  /** Calls to the embedding model that failed (Count): semantic search and matching answer 503, hybrid search degrades to keyword. */
  embeddingFailures: 'EmbeddingFailures',
  /** Searches whose vector work was shed because the search domain said it was overloaded (Count): semantic 503s, hybrid answered from keywords. */
  vectorSearchesShed: 'VectorSearchesShed',
  /** Webhook deliveries that got a 2xx (Count). */
  webhookDelivered: 'WebhookDelivered',
  /** Webhook deliveries that failed their last attempt (Count). */
  webhookFailed: 'WebhookFailed',
  /** Webhook attempts that failed and were queued again (Count). */
  webhookRetried: 'WebhookRetried',
  /** Attempts to one subscription's receiver (dimension `subscription`): the failure rate's denominator. */
  webhookSubscriptionAttempts: 'WebhookSubscriptionAttempts',
  /** Attempts to one subscription's receiver that got no 2xx (dimension `subscription`). */
  webhookSubscriptionFailures: 'WebhookSubscriptionFailures',
  /** At each failed attempt, seconds since its receiver began failing (no dimension): the webhook-receiver-failing alarm's metric. */
  webhookReceiverFailingSeconds: 'WebhookReceiverFailingSeconds',
  /** Per indexer batch: the largest age of its stream records, now minus ApproximateCreationDateTime (Seconds). */
  indexerLagSeconds: 'IndexerLagSeconds',
  /** Records the indexer wrote without their vector because the embedding model failed (Count). */
  recordsIndexedWithoutVector: 'RecordsIndexedWithoutVector',
  /** Per backfill run: records still waiting for their vector when it started, up to its batch (Count). */
  vectorBacklog: 'VectorBacklog',
  /** Records the backfill gave their vector (Count). */
  vectorsBackfilled: 'VectorsBackfilled',
} as const;
