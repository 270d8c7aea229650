/** Environment variables of the webhook functions, set by ServiceFunction.bindWebhookQueue (no imports: the CDK app reads it too). */
export const WEBHOOK_QUEUE_ENV = {
  queueUrl: 'WEBHOOK_QUEUE_URL',
  deadLetterQueueUrl: 'WEBHOOK_DEAD_LETTER_QUEUE_URL',
} as const;

/** The KMS key that seals webhook signing secrets: set (by ServiceFunction.bindWebhookSecretKey) only on the functions that may open them. */
export const WEBHOOK_SECRET_KEY_ENV = 'WEBHOOK_SECRET_KEY_ARN';
