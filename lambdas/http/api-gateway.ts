import { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { ServiceError } from '../core/errors';

export type ApiEvent = APIGatewayProxyEvent;
export type ApiResult = APIGatewayProxyResult;

export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'gcf-api' });

/** How logs name a key: the first characters of its id (`key_` and four more), never the key. */
export function keyIdPrefixOf(keyId: string): string {
  return keyId.slice(0, 8);
}

const JSON_HEADERS = { 'Content-Type': 'application/json; charset=utf-8' } as const;

/**
 * Every value given for each query parameter. API Gateway's single-value map keeps only the last
 * of repeated parameters; the multi-value map lets a repeated known parameter be rejected instead.
 */
export function queryParams(event: ApiEvent): Record<string, string[]> {
  // A Map: a parameter named __proto__ or hasOwnProperty must not meet Object.prototype.
  const out = new Map<string, string[]>();
  for (const [name, values] of Object.entries(event.multiValueQueryStringParameters ?? {})) {
    if (values) out.set(name, [...values]);
  }
  for (const [name, value] of Object.entries(event.queryStringParameters ?? {})) {
    if (value !== undefined && !out.has(name)) out.set(name, [value]);
  }
  return Object.fromEntries(out);
}

/** The request body as text (API Gateway base64-encodes bodies it treats as binary). */
export function requestBody(event: ApiEvent): string | null {
  if (event.body === null || event.body === undefined) return null;
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
}

export function jsonResult(statusCode: number, body: unknown, headers: Record<string, string> = {}): ApiResult {
  return { statusCode, headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(body) };
}

export function errorResult(error: unknown, event: ApiEvent): ApiResult {
  // The request's id, for the caller to quote (withRequestId sends it as X-Request-Id too).
  const requestId = event.requestContext?.requestId;
  const id = requestId ? { request_id: requestId } : {};
  if (error instanceof ServiceError) {
    const body = { error: { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}), ...id } };
    if (error.status >= 500) {
      const cause = error.cause instanceof Error ? `${error.cause.name}: ${error.cause.message}` : undefined;
      logger.error('request failed', { code: error.code, path: event.path, error: error.message, cause });
    }
    const result = jsonResult(error.status, body);
    // What the error says with headers: the quota's figures and Retry-After.
    return error.headers ? { ...result, headers: { ...result.headers, ...error.headers } } : result;
  }
  // Never leak internals to the client; the log keeps the stack (path only: no headers, no body).
  logger.error('unhandled error', { path: event.path, requestId, error: error as Error });
  return jsonResult(500, { error: { code: 'INTERNAL', message: 'Internal error; it has been logged', ...id } });
}

export const REQUEST_ID_HEADER = 'X-Request-Id';

/**
 * The answer with its request id in the `X-Request-Id` header, on every response, so a caller can
 * quote it and on-call can find the request's log lines (which carry the same id); error bodies
 * carry it as `error.request_id` where they are made (errorResult). API Gateway's id in AWS; the
 * local server's own.
 */
export function withRequestId(result: ApiResult, requestId: string | undefined): ApiResult {
  return requestId ? { ...result, headers: { ...result.headers, [REQUEST_ID_HEADER]: requestId } } : result;
}

/** Wraps a route so that every failure becomes the JSON error body, never a raw 500. */
export function apiRoute(run: (event: ApiEvent, startedAt: number) => Promise<ApiResult>): (event: ApiEvent) => Promise<ApiResult> {
  return async (event) => {
    const startedAt = performance.now();
    try {
      return await run(event, startedAt);
    } catch (error) {
      return errorResult(error, event);
    }
  };
}
