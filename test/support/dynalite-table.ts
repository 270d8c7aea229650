import type { AddressInfo } from 'node:net';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';

export interface DynaliteTable {
  endpoint: string;
  /** A client of the table's server (a new one each call). */
  client(): DynamoDBClient;
  close(): Promise<void>;
}

/** A dynalite server on loopback with one table keyed pk/sk, as the records table is, ACTIVE before it returns. */
export async function startDynaliteTable(tableName: string): Promise<DynaliteTable> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const server = dynalite({ createTableMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = () => new DynamoDBClient({ endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const admin = client();
  try {
    await admin.send(
      new CreateTableCommand({
        TableName: tableName,
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    // dynalite reports the table only once it turns ACTIVE, a tick or more after creating it.
    for (let attempt = 0; ; attempt++) {
      const status = await admin.send(new DescribeTableCommand({ TableName: tableName })).then(
        (out) => out.Table?.TableStatus,
        () => undefined,
      );
      if (status === 'ACTIVE') break;
      if (attempt === 500) throw new Error('the test table did not become ACTIVE');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } finally {
    admin.destroy();
  }
  return { endpoint, client, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
