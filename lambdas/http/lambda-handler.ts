import type { Logger } from '@aws-lambda-powertools/logger';
import type { Tracer } from '@aws-lambda-powertools/tracer';
import type { Callback, Context, Handler } from 'aws-lambda';
import { METRIC_NAMES } from '../core/metric-names';
import type { FlushableMetrics } from '../ports/metrics';
import { type ApiEvent, type ApiResult, errorResult, keyIdPrefixOf, withRequestId } from './api-gateway';
import { principalOf } from './authenticated-route';
import { type CorsOrigins, originHeaderOf, withCorsHeaders } from './cors';

/** What the wrapper uses of Powertools Tracer (a test passes a double). */
export type HandlerTracer = Pick<
  Tracer,
  'getSegment' | 'setSegment' | 'annotateColdStart' | 'addServiceNameAnnotation' | 'addErrorAsMetadata' | 'putAnnotation'
>;

/** Powertools for one function: built once per cold start by the composition root (composition/aws-telemetry.ts). */
export interface Telemetry {
  logger: Logger;
  metrics: FlushableMetrics;
  /** Absent where there is no X-Ray (outside Lambda, or tracing turned off). */
  tracer?: HandlerTracer;
}

// Every handler here is async; none calls back.
const NO_CALLBACK: Callback = () => {
  throw new Error('the handlers of this service are async and never call back');
};

/**
 * The one handler style of every Lambda: `export const handler = lambdaHandler(name, telemetry, fn)`
 * (API routes: apiHandler). Per invocation it gives the logger the Lambda context (request id,
 * cold start, function), runs `fn` in an X-Ray subsegment `## <name>` (cold start and service
 * annotations, the error as metadata), then flushes the metrics recorded meanwhile and drops the
 * invocation's log keys. Called without a Lambda context, as the local server calls a route's
 * handler (with the event alone, and no CloudWatch to write to), it is `fn` alone.
 */
export function lambdaHandler<E, R>(name: string, telemetry: Telemetry, fn: Handler<E, R>): (event: E, context?: Context) => Promise<R> {
  const { logger, metrics, tracer } = telemetry;
  const run = async (event: E, context: Context | undefined) => (await fn(event, context as Context, NO_CALLBACK)) as R;
  return async (event, context) => {
    if (!context) return run(event, context);
    logger.refreshSampleRateCalculation();
    logger.addContext(context);
    const segment = tracer?.getSegment();
    const subsegment = segment?.addNewSubsegment(`## ${name}`);
    if (tracer && subsegment) {
      tracer.setSegment(subsegment);
      tracer.annotateColdStart();
      tracer.addServiceNameAnnotation();
    }
    try {
      return await run(event, context);
    } catch (error) {
      if (subsegment) tracer?.addErrorAsMetadata(error as Error);
      throw error;
    } finally {
      if (tracer && segment && subsegment) {
        subsegment.close();
        tracer.setSegment(segment);
      }
      try {
        metrics.flush();
      } catch (error) {
        // Metrics must not cost the caller a response.
        logger.warn('could not write metrics', { error: error as Error });
      }
      logger.resetKeys();
    }
  };
}

/**
 * An API route's Lambda: lambdaHandler plus, per request, one log line (`request`: route, status,
 * latency, the key id's prefix and tier, API Gateway's request id on every line of the
 * invocation; never a key, header or body) and the route's Requests, Errors (1 for a 5xx, else 0,
 * so their average is the 5xx rate) and Latency metrics. `route` is the metric dimension, e.g.
 * `GET /grants-api/{id}`: the method and path of the route in lib/api-routes.ts. Every answer, 2xx to
 * 5xx, carries the CORS headers for the request's Origin under `corsOrigins` (the stage's allowed
 * origins, composition/aws-cors.ts): none when that origin is not allowed.
 */
export function apiHandler(
  route: string,
  telemetry: Telemetry,
  fn: (event: ApiEvent) => Promise<ApiResult>,
  corsOrigins: CorsOrigins,
): (event: ApiEvent, context?: Context) => Promise<ApiResult> {
  const { logger, metrics, tracer } = telemetry;
  const observed = lambdaHandler(route, telemetry, async (event: ApiEvent) => {
    const startedAt = performance.now();
    const requestId = event.requestContext?.requestId;
    logger.appendKeys({ route, ...(requestId ? { requestId } : {}) });
    tracer?.putAnnotation('route', route);
    let result: ApiResult;
    try {
      result = await fn(event);
    } catch (error) {
      result = errorResult(error, event);
    }
    const latencyMs = performance.now() - startedAt;
    const principal = principalOf(event);
    logger.info('request', {
      status: result.statusCode,
      latencyMs: Math.round(latencyMs * 100) / 100,
      ...(principal ? { keyIdPrefix: keyIdPrefixOf(principal.keyId), tier: principal.tier } : {}),
    });
    metrics.record(METRIC_NAMES.requests, 'Count', 1, { route });
    metrics.record(METRIC_NAMES.errors, 'Count', result.statusCode >= 500 ? 1 : 0, { route });
    metrics.record(METRIC_NAMES.latency, 'Milliseconds', latencyMs, { route });
    const answer = withRequestId(result, requestId);
    return { ...answer, headers: withCorsHeaders(answer.headers, corsOrigins, originHeaderOf(event.headers)) };
  });
  // The local server: the bare route (see lambdaHandler).
  return (event, context) => (context ? observed(event, context) : fn(event));
}
