import { STACK_OUTPUTS, stackNamesOf } from '../../lib/stack-names';
import type { StandInCloudFormation, StandInStack } from './stand-in-cloudformation';

/** The alarm topic and indexer of a stand-in stage, as its stateless stack's outputs name them. */
export const STAND_IN_TOPIC = (stage: string) => `arn:aws:sns:us-east-1:123456789012:Gcf-${stage}-Stateless-AlarmsTopic`;
export const STAND_IN_TICKET_TOPIC = (stage: string) => `arn:aws:sns:us-east-1:123456789012:Gcf-${stage}-Stateless-AlarmsTicketTopic`;
export const STAND_IN_INDEXER = (stage: string) => `Gcf-${stage}-Stateless-RecordIndexerFunction-AbC123`;

/**
 * Both stacks of a deployed stage, with every output `admin status` reads, in a CloudFormation
 * stand-in: what `cdk deploy` of the current version leaves (test/infra/status-outputs.test.ts
 * pins that the stacks define these outputs).
 */
export function deployStandInStage(
  cloudFormation: StandInCloudFormation,
  stage: string,
  queues: { webhookDeadLetter: string; indexerFailure: string },
): { stateful: StandInStack; stateless: StandInStack } {
  const names = stackNamesOf(stage);
  const stateful: StandInStack = {
    StackName: names.stateful,
    StackStatus: 'UPDATE_COMPLETE',
    CreationTime: new Date('2026-10-01T09:00:00Z'),
    LastUpdatedTime: new Date('2026-11-20T10:02:00Z'),
    Outputs: {
      [STACK_OUTPUTS.recordsTableName]: `Gcf-${stage}-Stateful-RecordsTable`,
      [STACK_OUTPUTS.webhookDeadLetterQueueUrl]: queues.webhookDeadLetter,
      [STACK_OUTPUTS.indexerFailureQueueUrl]: queues.indexerFailure,
    },
  };
  const stateless: StandInStack = {
    StackName: names.stateless,
    StackStatus: 'CREATE_COMPLETE',
    CreationTime: new Date('2026-11-25T16:30:00Z'),
    Outputs: {
      [STACK_OUTPUTS.alarmTopicArn]: STAND_IN_TOPIC(stage),
      [STACK_OUTPUTS.ticketAlarmTopicArn]: STAND_IN_TICKET_TOPIC(stage),
      [STACK_OUTPUTS.dashboardName]: `gcf-data-service-${stage}`,
      [STACK_OUTPUTS.indexerFunctionName]: STAND_IN_INDEXER(stage),
    },
  };
  cloudFormation.stacks.set(stateful.StackName, stateful);
  cloudFormation.stacks.set(stateless.StackName, stateless);
  return { stateful, stateless };
}
