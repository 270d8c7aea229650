import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConditionalCheckFailedException, DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DeleteCommand, DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lambdaContext } from '../../local/aws-mode/lambda-context';
import { LOCAL_AWS_TABLE_NAME, type LocalTable, startLocalTable } from '../../local/aws-mode/local-aws-resources';
import { StreamEventSource, type StreamHandler, TableStream } from '../../local/aws-mode/table-stream';

/**
 * The local AWS mode's stand-in for DynamoDB Streams: the proxy in front of dynalite makes stream
 * records of every write as DynamoDB does (NEW_AND_OLD_IMAGES, none for a write that changes
 * nothing), and the event source mapping hands them to a handler as Lambda does.
 */

describe('the emulated stream of the local table', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gcf-stream-'));
  let table: LocalTable;
  let doc: DynamoDBDocumentClient;
  const TableName = LOCAL_AWS_TABLE_NAME;

  beforeAll(async () => {
    table = await startLocalTable(dataDir);
    doc = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: table.endpoint, region: 'us-east-1', credentials: { ...table.credentials } }));
  });
  afterAll(async () => {
    doc?.destroy();
    await table?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const newRecords = (from: number) => table.stream.read(from, 1_000);

  it('records an insert, a modify and a remove with their images, and nothing for writes that change nothing', async () => {
    const from = table.stream.end;
    const key = { pk: 'grant#1', sk: 'record' };
    await doc.send(new PutCommand({ TableName, Item: { ...key, title: 'first' } }));
    await doc.send(new PutCommand({ TableName, Item: { ...key, title: 'first' } }));
    await doc.send(new UpdateCommand({ TableName, Key: key, UpdateExpression: 'SET title = :t', ExpressionAttributeValues: { ':t': 'second' } }));
    await expect(
      doc.send(new PutCommand({ TableName, Item: { ...key, title: 'third' }, ConditionExpression: 'attribute_not_exists(pk)' })),
    ).rejects.toBeInstanceOf(ConditionalCheckFailedException);
    await doc.send(new DeleteCommand({ TableName, Key: key }));
    await doc.send(new DeleteCommand({ TableName, Key: key }));
    const records = newRecords(from);
    expect(records.map((r) => r.eventName)).toEqual(['INSERT', 'MODIFY', 'REMOVE']);
    expect(records[0]!.dynamodb).toMatchObject({
      Keys: { pk: { S: 'grant#1' }, sk: { S: 'record' } },
      NewImage: { title: { S: 'first' } },
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    });
    expect(records[0]!.dynamodb!.OldImage).toBeUndefined();
    expect(records[1]!.dynamodb).toMatchObject({ OldImage: { title: { S: 'first' } }, NewImage: { title: { S: 'second' } } });
    expect(records[2]!.dynamodb).toMatchObject({ OldImage: { title: { S: 'second' } } });
    expect(records[2]!.dynamodb!.NewImage).toBeUndefined();
    const sequence = records.map((r) => BigInt(r.dynamodb!.SequenceNumber!));
    expect(sequence).toEqual([...sequence].sort((a, b) => (a < b ? -1 : 1)));
  });

  it("answers only requests signed with this start's credential, which the state folder keeps for its owner alone", async () => {
    for (const credentials of [
      { accessKeyId: 'local', secretAccessKey: 'local' },
      { accessKeyId: table.credentials.accessKeyId.slice(0, -1), secretAccessKey: table.credentials.secretAccessKey },
    ]) {
      const stranger = new DynamoDBClient({ endpoint: table.endpoint, region: 'us-east-1', credentials, maxAttempts: 1 });
      await expect(stranger.send(new ListTablesCommand({}))).rejects.toMatchObject({ name: 'UnrecognizedClientException', $metadata: { httpStatusCode: 400 } });
      await expect(DynamoDBDocumentClient.from(stranger).send(new PutCommand({ TableName, Item: { pk: 'key#minted', sk: 'record' } }))).rejects.toMatchObject({
        name: 'UnrecognizedClientException',
      });
      stranger.destroy();
    }
    // Unsigned, as a raw request: refused too.
    const unsigned = await fetch(table.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.ListTables' },
      body: '{}',
    });
    expect(unsigned.status).toBe(400);
    expect(((await unsigned.json()) as { __type: string }).__type).toMatch(/UnrecognizedClientException$/);
    expect(table.credentials.accessKeyId).toMatch(/^LOCAL[0-9A-F]{32}$/);
    const { accessKeyId, secretAccessKey } = table.credentials;
    expect(JSON.parse(readFileSync(table.credentialsFile, 'utf8'))).toEqual({ accessKeyId, secretAccessKey });
    expect(statSync(table.credentialsFile).mode & 0o777).toBe(0o600);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
  });

  it('records each item of a batch write, in the order of the batch', async () => {
    const from = table.stream.end;
    const items = [3, 1, 2].map((n) => ({ pk: `grant#b${n}`, sk: 'record', n }));
    await doc.send(new BatchWriteCommand({ RequestItems: { [TableName]: items.map((Item) => ({ PutRequest: { Item } })) } }));
    expect(newRecords(from).map((r) => [r.eventName, r.dynamodb!.Keys!.pk!.S])).toEqual([
      ['INSERT', 'grant#b3'],
      ['INSERT', 'grant#b1'],
      ['INSERT', 'grant#b2'],
    ]);
  });
});

describe('the event source mapping of the emulated stream', () => {
  const recordOf = (n: number, sk = 'record'): DynamoDBRecord => ({
    eventName: 'INSERT',
    dynamodb: { Keys: { pk: { S: `grant#${n}` }, sk: { S: sk } }, SequenceNumber: String(100 + n) },
  });
  const pkOf = (r: DynamoDBRecord) => r.dynamodb!.Keys!.pk!.S!;
  const options = { batchSize: 10, maxBatchingWindowMs: 10, retryAttempts: 2, bisectBatchOnError: true, onError: () => undefined };

  it('drops what its filter does not match, and hands the records after a reported failure over again from that record', async () => {
    const stream = new TableStream();
    const batches: string[][] = [];
    let failOnce = true;
    const handler: StreamHandler = async (event) => {
      batches.push(event.Records.map(pkOf));
      if (failOnce && event.Records.length > 1) {
        failOnce = false;
        return { batchItemFailures: [{ itemIdentifier: event.Records[1]!.dynamodb!.SequenceNumber! }] };
      }
      return { batchItemFailures: [] };
    };
    const mapping = new StreamEventSource(stream, handler, lambdaContext('test', 'us-east-1', 1_000), {
      ...options,
      name: 'test',
      filter: (r) => r.dynamodb?.Keys?.sk?.S === 'record',
      onGivenUp: () => undefined,
    });
    stream.append([recordOf(1), recordOf(2, 'event'), recordOf(3), recordOf(4)]);
    mapping.start();
    await stream.drained();
    await mapping.stop();
    expect(batches).toEqual([
      ['grant#1', 'grant#3', 'grant#4'],
      ['grant#3', 'grant#4'],
    ]);
  });

  it('bisects a batch whose invocation fails until the failing record is alone, and gives that one up after its retries', async () => {
    const stream = new TableStream();
    const handled = new Set<string>();
    const givenUp: string[] = [];
    const handler: StreamHandler = async (event) => {
      if (event.Records.some((r) => pkOf(r) === 'grant#3')) throw new Error('poison');
      for (const r of event.Records) handled.add(pkOf(r));
    };
    const mapping = new StreamEventSource(stream, handler, lambdaContext('test', 'us-east-1', 1_000), {
      ...options,
      name: 'test',
      filter: () => true,
      onGivenUp: (records) => givenUp.push(...records.map(pkOf)),
    });
    stream.append([1, 2, 3, 4].map((n) => recordOf(n)));
    mapping.start();
    await stream.drained();
    await mapping.stop();
    expect([...handled].sort()).toEqual(['grant#1', 'grant#2', 'grant#4']);
    expect(givenUp).toEqual(['grant#3']);
  });
});
