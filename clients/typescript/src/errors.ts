import type { ErrorCode, ErrorDetail } from './types.js';

/** A code for answers that are not the service's error body (a proxy's HTML page, an empty body). */
export type UnexpectedErrorCode = 'UNEXPECTED_RESPONSE';

/**
 * A non-2xx answer from the service. `code`, `message` and `details` come from the error body
 * (details names each rejected field of a 400); `requestId` from `error.request_id`, or the
 * `X-Request-Id` header when the body has none: quote it when asking about a failed request.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  readonly code: ErrorCode | UnexpectedErrorCode;
  readonly details: ErrorDetail[];
  readonly requestId: string | undefined;
  /** Seconds the service asked to wait (Retry-After of a 429 or 503), when it said. */
  readonly retryAfterSeconds: number | undefined;
  /** The body as received (parsed JSON when it was JSON). */
  readonly body: unknown;

  constructor(init: {
    status: number;
    code: ErrorCode | UnexpectedErrorCode;
    message: string;
    details?: ErrorDetail[];
    requestId?: string;
    retryAfterSeconds?: number;
    body?: unknown;
  }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.details = init.details ?? [];
    this.requestId = init.requestId;
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.body = init.body;
  }
}

function isErrorBody(body: unknown): body is { error: { code: ErrorCode; message: string; details?: ErrorDetail[]; request_id?: string } } {
  if (typeof body !== 'object' || body === null || !('error' in body)) return false;
  const error = (body as { error: unknown }).error;
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { code?: unknown }).code === 'string' &&
    typeof (error as { message?: unknown }).message === 'string'
  );
}

/** The ApiError for a failed response whose body openapi-fetch has read (JSON when it parsed). */
export function apiErrorFrom(response: Response, body: unknown, retryAfterSeconds: number | undefined): ApiError {
  const headerId = response.headers.get('x-request-id') ?? undefined;
  if (isErrorBody(body)) {
    const { code, message, details, request_id: requestId } = body.error;
    return new ApiError({ status: response.status, code, message, details, requestId: requestId ?? headerId, retryAfterSeconds, body });
  }
  const text = typeof body === 'string' ? body.slice(0, 200) : '';
  return new ApiError({
    status: response.status,
    code: 'UNEXPECTED_RESPONSE',
    message: `HTTP ${response.status}${text ? `: ${text}` : ''}`,
    requestId: headerId,
    retryAfterSeconds,
    body,
  });
}

/**
 * Offset paging cannot go past the service's offset cap (10,000) and the service gave no
 * `pagination.next_cursor` to continue with: a server without deep paging. Narrow the filters
 * so the list fits, or use a server that returns cursors.
 */
export class PagingLimitError extends Error {
  override readonly name = 'PagingLimitError';
  constructor(
    readonly total: number,
    readonly reached: number,
  ) {
    super(
      `the list has ${total} results but offset paging stops at ${reached} and the service returned no pagination.next_cursor to continue: narrow the filters`,
    );
  }
}
