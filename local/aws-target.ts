import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoKeyStore } from '../lambdas/adapters/aws/dynamo-key-store';
import { DynamoRecordStore } from '../lambdas/adapters/aws/dynamo-record-store';
import { DynamoUsageMeter } from '../lambdas/adapters/aws/dynamo-usage-meter';
import { systemClock } from '../lambdas/ports/clock';
import { openSearchIndex } from '../lambdas/composition/aws-search';
import type { IngestPorts } from '../lambdas/core/use-cases/ingest-records';
import type { KeyStore } from '../lambdas/ports/key-store';
import type { RecordStore } from '../lambdas/ports/record-store';
import type { UsageMeter } from '../lambdas/ports/usage-meter';
import type { SearchIndex } from '../lambdas/ports/search-index';
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

/** An output of the stage's stateful stack, or the explicit value that overrides the lookup. */
async function statefulOutput(options: AwsTargetOptions, output: string, what: string, flag: string, explicit?: string): Promise<string> {
  if (explicit) return explicit;
  const stackName = stackNamesOf(options.stage).stateful;
  const cloudFormation = new CloudFormationClient({ region: options.region });
  try {
    const { Stacks } = await cloudFormation.send(new DescribeStacksCommand({ StackName: stackName }));
    const value = Stacks?.[0]?.Outputs?.find((o) => o.OutputKey === output)?.OutputValue;
    if (!value) throw new Error(`stack ${stackName} has no ${output} output: deploy the current version first`);
    return value;
  } catch (error) {
    throw new AwsTargetError(`cannot find the ${what} of stage "${options.stage}" (${(error as Error).message}); pass ${flag} to skip the lookup`);
  } finally {
    cloudFormation.destroy();
  }
}

export function recordsTableOf(options: AwsTargetOptions): Promise<string> {
  return statefulOutput(options, STACK_OUTPUTS.recordsTableName, 'records table', '--table-name', options.tableName);
}

export function searchEndpointOf(options: AwsTargetOptions & { searchEndpoint?: string }): Promise<string> {
  return statefulOutput(options, STACK_OUTPUTS.searchDomainEndpoint, 'search domain', '--search-endpoint', options.searchEndpoint);
}

/** The records table and the search domain of a stage, for a backfill of its index (`admin reindex --target aws`). */
export async function awsReindexPorts(options: AwsTargetOptions & { searchEndpoint?: string }): Promise<{ store: RecordStore; index: SearchIndex; tableName: string; endpoint: string; close(): void }> {
  const tableName = await recordsTableOf(options);
  const endpoint = await searchEndpointOf(options);
  const client = new DynamoDBClient({ region: options.region });
  const region = options.region ?? (await client.config.region());
  const index = openSearchIndex({ SEARCH_DOMAIN_ENDPOINT: endpoint.startsWith('http') ? endpoint : `https://${endpoint}`, AWS_REGION: region });
  return { store: new DynamoRecordStore(client, tableName), index, tableName, endpoint, close: () => client.destroy() };
}

/** The key store and usage meter in a stage's records table (`admin keys --target aws`). */
export async function awsKeyPorts(options: AwsTargetOptions): Promise<{ keys: KeyStore; meter: UsageMeter; close(): void }> {
  const tableName = await recordsTableOf(options);
  const client = new DynamoDBClient({ region: options.region });
  return { keys: new DynamoKeyStore(client, tableName), meter: new DynamoUsageMeter(client, tableName), close: () => client.destroy() };
}

export async function awsIngestPorts(options: AwsTargetOptions): Promise<IngestPorts & { tableName: string; close(): void }> {
  const tableName = await recordsTableOf(options);
  const client = new DynamoDBClient({ region: options.region });
  return { store: new DynamoRecordStore(client, tableName), clock: systemClock, tableName, close: () => client.destroy() };
}
