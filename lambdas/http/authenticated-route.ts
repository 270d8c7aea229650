import { unauthorized } from '../core/auth/api-keys';
import { utcDayOf } from '../core/auth/quota';
import { isTierName } from '../core/auth/tiers';
import { ServiceError } from '../core/errors';
import { METRIC_NAMES } from '../core/metric-names';
import { requestLogEntryOf } from '../core/usage/request-log';
import { admitRequest, type RouteFeature } from '../core/use-cases/admit-request';
import type { Principal } from '../core/use-cases/authenticate';
import type { ServicesProvider } from '../ports/services';
import { type ApiEvent, type ApiResult, apiRoute, errorResult, keyIdPrefixOf, logger } from './api-gateway';

/** The caller the authorizer let through, from the request context (API Gateway's, or the local server's). */
export function principalOf(event: ApiEvent): Principal | null {
  const context = event.requestContext?.authorizer as Record<string, unknown> | null | undefined;
  const keyId = context?.keyId;
  const tier = context?.tier;
  return typeof keyId === 'string' && isTierName(tier) ? { keyId, tier } : null;
}

/**
 * A route for authenticated callers: the tier's access, the daily quota and the request rate are checked first,
 * the rate-limit headers go on every response (errors too), and each response is counted in the
 * key's usage figures. Without an authorizer's principal the request is 401: routes never trust
 * a request the authorizer did not see. Each response also goes to the key's recent-requests log,
 * written beside the usage figures.
 */
export function authenticatedRoute(
  feature: RouteFeature,
  services: ServicesProvider,
  run: (event: ApiEvent, startedAt: number) => Promise<ApiResult>,
): (event: ApiEvent) => Promise<ApiResult> {
  const route = apiRoute(run);
  return async (event) => {
    const startedAt = performance.now();
    const principal = principalOf(event);
    if (!principal) return errorResult(unauthorized('Missing or invalid API key'), event);
    const { meter, clock, tiers, metrics, requestLog } = services();
    const now = clock.now();
    let result: ApiResult;
    try {
      const headers = await admitRequest(principal, feature, meter, now, tiers);
      result = await route(event);
      result = { ...result, headers: { ...result.headers, ...headers } };
    } catch (error) {
      result = errorResult(error, event);
      if (error instanceof ServiceError && error.code === 'RATE_LIMITED') metrics?.record(METRIC_NAMES.quotaRejections, 'Count', 1);
    }
    const latencyMs = performance.now() - startedAt;
    const requestId = event.requestContext?.requestId;
    const [recorded, logged] = await Promise.allSettled([
      meter.record(principal.keyId, utcDayOf(now), { status: result.statusCode, latencyMs, at: now }),
      requestLog && requestId
        ? requestLog.append(
            principal.keyId,
            requestLogEntryOf({ at: now, method: event.httpMethod, path: event.path, status: result.statusCode, latencyMs, requestId }),
          )
        : undefined,
    ]);
    // Usage figures and the log must not cost the caller a response.
    if (recorded.status === 'rejected') logger.warn('could not record usage', { keyIdPrefix: keyIdPrefixOf(principal.keyId), error: recorded.reason as Error });
    if (logged.status === 'rejected') logger.warn('could not log the request', { keyIdPrefix: keyIdPrefixOf(principal.keyId), error: logged.reason as Error });
    return result;
  };
}
