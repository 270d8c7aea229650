import { describe, expect, it } from 'vitest';
import { FUNCTION_ENV } from '../../lambdas/composition/function-env';
import { monitoringNameOf, STACK_OUTPUTS, serviceNameOf } from '../../lib/stack-names';
import { STATEFUL_LOGICAL_IDS } from '../../lib/stateful-stack';
import { resourcesOfType, synthStage } from './synth-stacks';

/**
 * The stack outputs `admin status --target aws` reads (local/aws-stage-health.ts), and what it
 * assumes of them: alarm names start with the DashboardName output and notify the AlarmTopicArn
 * output's topic, and the service name inside DashboardName is the functions' metrics dimension.
 */
describe.each([
  ['dev', undefined],
  // A stage name with a hyphen and another service name: the monitoring name still splits apart.
  ['dev-alice', 'acme-grants'],
])('the outputs admin status reads (stage %s)', (stage, serviceName) => {
  const { stateful, stateless } = synthStage(stage, serviceName ? { serviceName } : undefined);
  const outputsOf = (template: typeof stateful) => template.toJSON().Outputs as Record<string, { Value: unknown }>;
  const service = serviceName ?? 'gcf-data-service';
  const lambdas = resourcesOfType(stateless, 'AWS::Lambda::Function');
  const [indexerId, indexer] = Object.entries(lambdas).find(([, fn]) => String(fn.Properties?.Description).includes('index-record-changes.ts'))!;

  it("the stateful stack outputs both dead-letter queues' URLs", () => {
    expect(outputsOf(stateful)[STACK_OUTPUTS.indexerFailureQueueUrl]?.Value).toEqual({ Ref: STATEFUL_LOGICAL_IDS.indexerFailureQueue });
    expect(outputsOf(stateful)[STACK_OUTPUTS.webhookDeadLetterQueueUrl]?.Value).toEqual({ Ref: STATEFUL_LOGICAL_IDS.webhookDeadLetterQueue });
  });

  it('the stateless stack outputs the indexer function, whose IteratorAge is read', () => {
    expect(outputsOf(stateless)[STACK_OUTPUTS.indexerFunctionName]?.Value).toEqual({ Ref: indexerId });
  });

  it('every alarm is named <DashboardName>-<anchor> and notifies the AlarmTopicArn or TicketAlarmTopicArn topic', () => {
    const monitoringName = outputsOf(stateless)[STACK_OUTPUTS.dashboardName]?.Value;
    expect(monitoringName).toBe(monitoringNameOf(service, stage));
    const topics = [STACK_OUTPUTS.alarmTopicArn, STACK_OUTPUTS.ticketAlarmTopicArn].map((key) => outputsOf(stateless)[key]?.Value);
    for (const topic of topics) expect(topic).toEqual({ Ref: expect.any(String) });
    const alarms = Object.values(resourcesOfType(stateless, 'AWS::CloudWatch::Alarm')).map(
      (alarm) => alarm.Properties as { AlarmName: string; AlarmActions: unknown[] },
    );
    expect(alarms.length).toBeGreaterThan(10);
    for (const alarm of alarms) {
      expect(alarm.AlarmName.startsWith(`${monitoringName}-`), alarm.AlarmName).toBe(true);
      expect(
        topics.filter((topic) => JSON.stringify(alarm.AlarmActions).includes(JSON.stringify(topic))),
        alarm.AlarmName,
      ).toHaveLength(1);
    }
  });

  it('the service inside DashboardName is the service dimension the indexer publishes IndexerLagSeconds under', () => {
    const environment = (indexer.Properties?.Environment as { Variables: Record<string, unknown> }).Variables;
    expect(serviceNameOf(outputsOf(stateless)[STACK_OUTPUTS.dashboardName]?.Value as string, stage)).toBe(environment[FUNCTION_ENV.serviceName]);
  });
});

describe('serviceNameOf', () => {
  it('inverts monitoringNameOf, and refuses a name of another stage', () => {
    expect(serviceNameOf(monitoringNameOf('gcf-data-service', 'dev-alice'), 'dev-alice')).toBe('gcf-data-service');
    expect(serviceNameOf('gcf-data-service-prod', 'dev')).toBeNull();
    expect(serviceNameOf('-dev', 'dev')).toBeNull();
  });
});
