/** The API's error body (DESIGN.md section 3) and how the dashboard says it to a person. */

export interface ApiErrorBody {
  code: string;
  message: string;
  request_id?: string;
  details?: { field: string; issue: string }[];
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody | null,
  ) {
    super(body?.message ?? `HTTP ${status}`);
    this.name = 'ApiError';
  }
}

/** The `error` of a response body, when it has the service's shape. */
export function errorBodyOf(json: unknown): ApiErrorBody | null {
  const error = (json as { error?: unknown } | null)?.error as Partial<ApiErrorBody> | undefined;
  if (!error || typeof error.code !== 'string' || typeof error.message !== 'string') return null;
  return error as ApiErrorBody;
}

/** A sentence for a person: what went wrong and what to do, then the API's own words and request id. */
export function plainError(error: unknown): string {
  if (!(error instanceof ApiError)) {
    if (error instanceof TypeError) return 'The dashboard could not reach the API. Check your connection and try again.';
    return `Something went wrong: ${(error as Error)?.message ?? String(error)}`;
  }
  const { status, body } = error;
  const lead =
    status === 401
      ? 'Your sign-in has expired or is not valid. Sign in again.'
      : status === 403
        ? 'Your plan does not allow this.'
        : status === 404
          ? 'That was not found. It may have been removed; reload the list.'
          : status === 409
            ? 'That cannot be done in the current state.'
            : status === 429
              ? 'Too many requests. Wait a moment and try again.'
              : status >= 500
                ? 'The service had a problem. Try again in a minute.'
                : 'The request was not accepted.';
  const details = body?.details?.map((d) => `${d.field}: ${d.issue}`).join('; ');
  const said = body ? ` (${body.message}${details ? ` — ${details}` : ''})` : '';
  const reference = body?.request_id ? ` Request id ${body.request_id}.` : '';
  return `${lead}${said}${reference}`;
}
