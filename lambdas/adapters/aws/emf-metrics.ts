import type { Metrics } from '@aws-lambda-powertools/metrics';
import { METRIC_DIMENSIONS } from '../../core/metric-names';
import type { FlushableMetrics, MetricDimensions, MetricName, MetricUnit } from '../../ports/metrics';

interface Recorded {
  name: MetricName;
  unit: MetricUnit;
  value: number;
  dimensions: [string, string][];
}

/** More than this many values between flushes (a long batch) are written out early. */
const MAX_PENDING = 1_000;

/**
 * Metrics as CloudWatch embedded metric format, through Powertools Metrics: recorded values wait
 * until flush() (once per invocation, by the handler wrapper), then each set of dimensions is
 * written as one EMF line (Powertools puts one set of dimensions on every metric of a line).
 * Nothing is written, and Powertools has nothing to warn about, when nothing was recorded.
 */
export class EmfMetrics implements FlushableMetrics {
  private pending: Recorded[] = [];

  constructor(private readonly metrics: Metrics) {}

  record(name: MetricName, unit: MetricUnit, value: number, dimensions: MetricDimensions = {}): void {
    const named = Object.entries(dimensions)
      .filter((entry): entry is [keyof MetricDimensions, string] => entry[1] !== undefined)
      .map(([key, dimension]): [string, string] => [METRIC_DIMENSIONS[key], dimension])
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    this.pending.push({ name, unit, value, dimensions: named });
    if (this.pending.length >= MAX_PENDING) this.flush();
  }

  flush(): void {
    if (this.pending.length === 0) return;
    const byDimensions = new Map<string, Recorded[]>();
    for (const recorded of this.pending) {
      const key = JSON.stringify(recorded.dimensions);
      const group = byDimensions.get(key);
      if (group) group.push(recorded);
      else byDimensions.set(key, [recorded]);
    }
    this.pending = [];
    for (const group of byDimensions.values()) {
      for (const [name, value] of group[0]!.dimensions) this.metrics.addDimension(name, value);
      for (const { name, unit, value } of group) this.metrics.addMetric(name, unit, value);
      this.metrics.publishStoredMetrics();
    }
  }
}
