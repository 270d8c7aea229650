import type { FlushableMetrics, MetricDimensions, MetricName, MetricUnit } from '../../lambdas/ports/metrics';

export interface RecordedMetric {
  name: MetricName;
  unit: MetricUnit;
  value: number;
  dimensions: MetricDimensions;
}

/** A metrics double: what was recorded, and what each flush() took. */
export function recordingMetrics(): FlushableMetrics & { recorded: RecordedMetric[]; flushes: RecordedMetric[][] } {
  let pending: RecordedMetric[] = [];
  const recorded: RecordedMetric[] = [];
  const flushes: RecordedMetric[][] = [];
  return {
    recorded,
    flushes,
    record(name, unit, value, dimensions = {}) {
      const metric = { name, unit, value, dimensions };
      recorded.push(metric);
      pending.push(metric);
    },
    flush() {
      flushes.push(pending);
      pending = [];
    },
  };
}
