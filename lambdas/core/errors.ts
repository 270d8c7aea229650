/** Error codes of DESIGN.md section 3; every non-2xx body is {"error": {code, message, details?}}. */
export const ERROR_CODES = [
  'INVALID_PARAMETER',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NO_API_ACCESS',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'RATE_LIMITED',
  'SEARCH_UNAVAILABLE',
  'INTERNAL',
] as const;
/**
 * Codes only the account API answers (the developer dashboard's, docs/account-api.json), kept out
 * of ERROR_CODES so the public document and its clients do not change: CONFLICT is a 409 (a cap
 * reached, a revoked key rotated, an idempotency key reused for another request).
 */
export const ACCOUNT_API_ERROR_CODES = [...ERROR_CODES, 'CONFLICT'] as const;
export type ErrorCode = (typeof ACCOUNT_API_ERROR_CODES)[number];
export type PublicErrorCode = (typeof ERROR_CODES)[number];

export interface FieldIssue {
  field: string;
  issue: string;
}

export class ServiceError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details?: FieldIssue[],
    /** Headers the error response carries (rate-limit figures, Retry-After). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'ServiceError';
  }
}

export function invalidParameters(details: FieldIssue[]): ServiceError {
  const fields = [...new Set(details.map((d) => d.field))].join(', ');
  return new ServiceError(400, 'INVALID_PARAMETER', `Invalid parameter: ${fields}`, details);
}

export function notFound(what: string, id: string): ServiceError {
  return new ServiceError(404, 'NOT_FOUND', `No ${what} with id ${id}`);
}

export function searchUnavailable(message: string): ServiceError {
  return new ServiceError(503, 'SEARCH_UNAVAILABLE', message);
}

export function conflict(message: string): ServiceError {
  return new ServiceError(409, 'CONFLICT', message);
}
