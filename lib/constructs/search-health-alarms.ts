import { ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { AlarmDefinition } from './service-alarms';
import { DASHBOARD_WIDGETS } from './service-dashboard';
import { ALARM_THRESHOLDS, type ServiceMetrics } from './service-metrics';

/**
 * OpenSearch health beyond red, yellow and free storage, with the thresholds of AWS's recommended
 * CloudWatch alarms for OpenSearch Service. Blocked writes page (indexing has stopped); the slow
 * burns (CPU, memory, rejections, snapshots) open a ticket.
 */
export function searchHealthAlarmDefinitions(metrics: ServiceMetrics): AlarmDefinition[] {
  return [
    {
      anchor: 'search-writes-blocked',
      severity: 'page',
      metric: metrics.searchWritesBlocked(),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      // The domain reports it every minute: silence means the domain is gone or unreachable.
      treatMissingData: TreatMissingData.BREACHING,
      summary: 'The OpenSearch domain blocks index writes (ClusterIndexWritesBlocked): new and changed records stop reaching search.',
      widget: DASHBOARD_WIDGETS.searchClusterStatus,
    },
    {
      anchor: 'search-cpu',
      severity: 'ticket',
      metric: metrics.searchCpuSustained(),
      threshold: ALARM_THRESHOLDS.searchCpuPercent,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 3,
      treatMissingData: TreatMissingData.MISSING, // red and writes-blocked speak for a missing domain
      summary: `An OpenSearch node's CPU has been at or above ${ALARM_THRESHOLDS.searchCpuPercent}% for 45 minutes: the domain needs a larger instance type or more nodes.`,
      widget: DASHBOARD_WIDGETS.searchClusterStatus,
    },
    {
      anchor: 'search-jvm-pressure',
      severity: 'ticket',
      metric: metrics.searchJvmPressurePerMinute(),
      threshold: ALARM_THRESHOLDS.searchJvmPressurePercent,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 3,
      treatMissingData: TreatMissingData.MISSING,
      summary: `An OpenSearch node's JVM memory pressure has been at or above ${ALARM_THRESHOLDS.searchJvmPressurePercent}% for 3 minutes: out-of-memory errors and blocked writes are near.`,
      widget: DASHBOARD_WIDGETS.searchClusterStatus,
    },
    ...(['Search', 'Write'] as const).map(
      (pool): AlarmDefinition => ({
        anchor: `search-${pool.toLowerCase()}-rejected`,
        severity: 'ticket',
        metric: metrics.searchThreadpoolRejected(pool),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING, // no rejections reported, none happened
        summary: `OpenSearch refused ${pool.toLowerCase()} requests because a node's ${pool.toLowerCase()} thread pool queue was full: the domain is undersized for the load.`,
        widget: DASHBOARD_WIDGETS.searchClusterStatus,
      }),
    ),
    {
      anchor: 'search-snapshot-failure',
      severity: 'ticket',
      metric: metrics.searchSnapshotFailure(),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
      summary: "The OpenSearch domain's automated snapshot failed (often because the cluster is red): there is no fresh restore point.",
      widget: DASHBOARD_WIDGETS.searchClusterStatus,
    },
  ];
}
