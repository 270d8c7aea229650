import { CreateTableCommand, DescribeTableCommand, type DynamoDBClient, ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import { FUNDER_INDEX } from '../lambdas/adapters/aws/records-table';

/**
 * Creates the local table as the stateful stack defines it (keys and the funder index); says
 * whether it was created now and whether it has the funder index. The local AWS mode makes its
 * table with it too.
 */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<{ funderIndex: boolean; created: boolean }> {
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    return { funderIndex: (Table?.GlobalSecondaryIndexes ?? []).some((index) => index.IndexName === FUNDER_INDEX.name), created: false };
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
        { AttributeName: FUNDER_INDEX.partitionKey, AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: [
        {
          IndexName: FUNDER_INDEX.name,
          KeySchema: [{ AttributeName: FUNDER_INDEX.partitionKey, KeyType: 'HASH' }],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  // Even with createTableMs 0, dynalite answers "not found" until the table turns ACTIVE on a later tick.
  for (let attempt = 0; attempt < 500; attempt++) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (Table?.TableStatus === 'ACTIVE') return { funderIndex: true, created: true };
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`local table ${tableName} did not become ACTIVE`);
}
