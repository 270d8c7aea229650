/**
 * The webhook queue's settings, in seconds and counts, with no CDK imports: the stateful stack
 * builds the queues from them and the local AWS mode (`npm start -- --engines`) creates the same
 * queues on ElasticMQ.
 */

/**
 * The webhook sender's Lambda timeout: ten deliveries of a batch are attempted in parallel, each
 * cut off after 10 s.
 */
export const WEBHOOK_SENDER_TIMEOUT_SECONDS = 60;
/** The queue's visibility timeout: six times the sender's timeout, as AWS advises for an SQS event source. */
export const WEBHOOK_VISIBILITY_TIMEOUT_SECONDS = 6 * WEBHOOK_SENDER_TIMEOUT_SECONDS;
/** Receives of one message before SQS moves it to the DLQ: only unexpected errors count (a failing receiver is retried by re-queueing). */
export const WEBHOOK_MAX_RECEIVES = 5;
/** How long the webhook queue and its dead-letter queue keep a message. */
export const WEBHOOK_QUEUE_RETENTION_SECONDS = 4 * 24 * 3600;
export const WEBHOOK_DEAD_LETTER_RETENTION_SECONDS = 14 * 24 * 3600;
