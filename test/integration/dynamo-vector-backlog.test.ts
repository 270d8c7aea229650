import { type DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoVectorBacklog } from '../../lambdas/adapters/aws/dynamo-vector-backlog';
import { type DynaliteTable, startDynaliteTable } from '../support/dynalite-table';

const TABLE = 'gcf-records';

/** The vector backlog's items in the records table, on dynalite (the table the local stack runs). */
describe('DynamoVectorBacklog on dynalite', () => {
  let table: DynaliteTable;
  let client: DynamoDBClient;

  beforeAll(async () => {
    table = await startDynaliteTable(TABLE);
    client = table.client();
  });

  afterAll(async () => {
    client.destroy();
    await table.close();
  });

  it('adds ids once each per kind, lists them up to a limit across pages, and removes them', async () => {
    const backlog = new DynamoVectorBacklog(client, TABLE, () => new Date('2026-11-26T10:00:00Z'));
    const ids = Array.from({ length: 60 }, (_, i) => `g-${String(i).padStart(3, '0')}`);
    await backlog.add('grant', [...ids, ids[0]!]);
    await backlog.add('funder', ['f-1']);
    expect((await backlog.list('grant', 100)).sort()).toEqual(ids);
    expect(await backlog.list('grant', 25)).toHaveLength(25);
    expect(await backlog.list('funder', 10)).toEqual(['f-1']);
    expect(await backlog.list('contract', 10)).toEqual([]);
    const { Item } = await client.send(new GetItemCommand({ TableName: TABLE, Key: { pk: { S: 'vector-backlog#grant' }, sk: { S: 'g-000' } } }));
    expect(Item).toMatchObject({ entity: { S: 'vector_backlog' }, added_at: { S: '2026-11-26T10:00:00.000Z' } });
    await backlog.remove('grant', ids.slice(0, 59));
    expect(await backlog.list('grant', 100)).toEqual(['g-059']);
    expect(await backlog.list('funder', 10)).toEqual(['f-1']);
  });
});
