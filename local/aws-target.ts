import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoRecordStore } from '../lambdas/adapters/aws/dynamo-record-store';
import { systemClock } from '../lambdas/ports/clock';
import type { IngestPorts } from '../lambdas/core/use-cases/ingest-records';
import { STACK_OUTPUTS, stackNamesOf } from '../lib/stack-names';

/**
 * The admin CLI's view of a deployed stage: the records table named by the stateful stack's
 * outputs. Writes go to DynamoDB only; its stream drives the indexer Lambda, as for any writer.
 */
export interface AwsTargetOptions {
  stage: string;
  region?: string;
  /** Skips the stack lookup. */
  tableName?: string;
}

/** A deployed stage that cannot be found or reached: the CLI prints the message alone. */
export class AwsTargetError extends Error {}

export async function recordsTableOf(options: AwsTargetOptions): Promise<string> {
  if (options.tableName) return options.tableName;
  const stackName = stackNamesOf(options.stage).stateful;
  const cloudFormation = new CloudFormationClient({ region: options.region });
  try {
    const { Stacks } = await cloudFormation.send(new DescribeStacksCommand({ StackName: stackName }));
    const output = Stacks?.[0]?.Outputs?.find((o) => o.OutputKey === STACK_OUTPUTS.recordsTableName)?.OutputValue;
    if (!output) throw new Error(`stack ${stackName} has no ${STACK_OUTPUTS.recordsTableName} output: deploy the current version first`);
    return output;
  } catch (error) {
    throw new AwsTargetError(`cannot find the records table of stage "${options.stage}" (${(error as Error).message}); pass --table-name to skip the lookup`);
  } finally {
    cloudFormation.destroy();
  }
}

export async function awsIngestPorts(options: AwsTargetOptions): Promise<IngestPorts & { tableName: string; close(): void }> {
  const tableName = await recordsTableOf(options);
  const client = new DynamoDBClient({ region: options.region });
  return { store: new DynamoRecordStore(client, tableName), clock: systemClock, tableName, close: () => client.destroy() };
}
