import { Metrics } from '@aws-lambda-powertools/metrics';
import type { Tracer } from '@aws-lambda-powertools/tracer';
import { EmfMetrics } from '../adapters/aws/emf-metrics';
import { METRICS_NAMESPACE } from '../core/metric-names';
import { logger } from '../http/api-gateway';
import type { Telemetry } from '../http/lambda-handler';

/**
 * Powertools for the Lambdas, once per cold start: the JSON logger (shared with the local server),
 * EMF metrics in the service's namespace (`service` = POWERTOOLS_SERVICE_NAME) and, in Lambda
 * only, Tracer. The X-Ray SDK under Tracer installs a process-wide async hook when it is loaded,
 * so it is imported only where AWS_EXECUTION_ENV says this is Lambda: the admin CLI and the local
 * server, which import these modules too, never pay for it. Tracer also patches http(s).request,
 * which traces the OpenSearch client's requests (webhook POSTs are left out: the transport holds
 * the unpatched functions, so no trace header reaches a subscriber); traced() adds the AWS SDK
 * clients, by service and operation.
 */

const serviceName = process.env.POWERTOOLS_SERVICE_NAME ?? 'gcf-api';

async function lambdaTracer(): Promise<Tracer | undefined> {
  if (!process.env.AWS_EXECUTION_ENV) return undefined;
  const { Tracer } = await import('@aws-lambda-powertools/tracer');
  const tracer = new Tracer({ serviceName });
  return tracer.isTracingEnabled() ? tracer : undefined;
}

const tracer = await lambdaTracer();

export const awsTelemetry: Telemetry = {
  logger,
  metrics: new EmfMetrics(new Metrics({ namespace: METRICS_NAMESPACE, serviceName })),
  ...(tracer ? { tracer } : {}),
};

/** An AWS SDK v3 client whose calls appear in X-Ray as subsegments named by service and operation (as is, outside Lambda). */
export function traced<T>(client: T): T {
  return tracer ? tracer.captureAWSv3Client(client) : client;
}
