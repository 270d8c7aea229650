import type { METRIC_NAMES } from '../core/metric-names';
import type { SearchMode } from '../core/query/list-query';

export type MetricName = (typeof METRIC_NAMES)[keyof typeof METRIC_NAMES];
export type MetricUnit = 'Count' | 'Milliseconds' | 'Seconds';

/** The dimensions a metric may carry besides `service` (their CloudWatch names are METRIC_DIMENSIONS'). */
export interface MetricDimensions {
  /** The API route, e.g. `GET /grants-api/{id}`. */
  route?: string;
  searchMode?: SearchMode;
  subscription?: string;
}

/**
 * CloudWatch metrics, named in core/metric-names.ts (which the dashboard and alarms read). In AWS
 * they are Powertools EMF lines flushed once per invocation (adapters/aws/emf-metrics.ts); the
 * local server records none.
 */
export interface MetricsRecorder {
  record(name: MetricName, unit: MetricUnit, value: number, dimensions?: MetricDimensions): void;
}

/** A recorder whose metrics are written out by flush(): the Lambda handler wrapper calls it after each invocation. */
export interface FlushableMetrics extends MetricsRecorder {
  flush(): void;
}

export const noMetrics: FlushableMetrics = { record: () => {}, flush: () => {} };
