export type { components, operations, paths } from './api-types.js';
export { type ClientOptions, createClient, type DataServiceClient } from './client.js';
export { ApiError, PagingLimitError, type UnexpectedErrorCode } from './errors.js';
export { OFFSET_MAX, PAGE_MAX } from './paging.js';
export { READ_ONLY_POST_PATHS, RETRYABLE_STATUSES, type RetryOptions, retryAfterMs } from './retry.js';
export type * from './types.js';
export { DEFAULT_TOLERANCE_SECONDS, verifyWebhookSignature, type WebhookHeaders, type WebhookVerificationOptions } from './webhooks.js';
