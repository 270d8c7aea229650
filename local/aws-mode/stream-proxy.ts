import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DynamoDBRecord } from 'aws-lambda';
import type { InProcessDynalite, RawResponse } from '../in-process-dynalite';
import { refuseUnknownKey, signedWith } from '../table-credentials';
import type { TableStream } from './table-stream';

/**
 * DynamoDB Streams for dynalite, which has none: the table's endpoint is this proxy in front of
 * dynalite. Every write to the table (PutItem, UpdateItem, DeleteItem, BatchWriteItem), whoever
 * makes it (a function, the admin CLI, a test), has the items it touches read before and after
 * it and becomes stream records with NEW_AND_OLD_IMAGES, in write order. As in DynamoDB, a write
 * that changes nothing (a put of the same item, a failed condition) makes no record. Writes are
 * taken one at a time so the images are exactly those of each write; reads pass straight through.
 * dynalite runs in this process with no port of its own; the proxy's port answers only requests
 * signed with this start's access key id (table-credentials.ts), refused before their body is read.
 */

type AttributeMap = Record<string, Record<string, unknown>>;
type WriteRequest = { PutRequest?: { Item: AttributeMap }; DeleteRequest?: { Key: AttributeMap } };

const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem']);
const BATCH_GET_MAX = 100;

export interface StreamProxyOptions {
  /** dynalite, called in process. */
  dynamo: InProcessDynalite;
  /** The access key id every request must be signed with. */
  accessKeyId: string;
  tableName: string;
  /** The table's key attributes (partition, then sort). */
  keyNames: readonly string[];
  region: string;
  stream: TableStream;
}

/** JSON with object keys sorted: two images are equal exactly when these strings are. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

async function readBody(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

type Forwarded = RawResponse;

export class StreamProxy {
  private readonly server: Server;
  private writes: Promise<unknown> = Promise.resolve();
  private sequence = 0n;
  private readonly streamArn: string;

  constructor(private readonly options: StreamProxyOptions) {
    this.streamArn = `arn:aws:dynamodb:${options.region}:000000000000:table/${options.tableName}/stream/${new Date().toISOString().slice(0, 23)}`;
    this.server = createServer((req, res) => {
      if (!signedWith(req, options.accessKeyId)) return refuseUnknownKey(res);
      void (async () => {
        const body = await readBody(req);
        const operation = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
        const run = () => (WRITES.has(operation) ? this.streamedWrite(operation, req.headers, body) : this.forward(req.method ?? 'POST', req.headers, body));
        const answer = WRITES.has(operation) ? ((await (this.writes = this.writes.then(run, run))) as Forwarded) : await run();
        res.writeHead(answer.status, answer.headers);
        res.end(answer.body);
      })().catch((error: Error) => {
        res.writeHead(500, { 'content-type': 'application/x-amz-json-1.0' });
        res.end(JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: error.message }));
      });
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await this.writes.catch(() => undefined);
  }

  private forward(method: string, headers: IncomingHttpHeaders, body: Buffer): Promise<Forwarded> {
    return this.options.dynamo.call({ method, url: '/', headers, body });
  }

  /** The keys of the records table's items a write request touches. */
  private keysOf(operation: string, request: Record<string, unknown>): AttributeMap[] {
    const keyOf = (item: AttributeMap) => Object.fromEntries(this.options.keyNames.map((name) => [name, item[name]!]));
    if (operation === 'BatchWriteItem') {
      const requests = (request.RequestItems as Record<string, WriteRequest[]> | undefined)?.[this.options.tableName] ?? [];
      return requests.map((r) => keyOf(r.PutRequest?.Item ?? r.DeleteRequest!.Key));
    }
    if (request.TableName !== this.options.tableName) return [];
    return [keyOf((operation === 'PutItem' ? request.Item : request.Key) as AttributeMap)];
  }

  private async streamedWrite(operation: string, headers: IncomingHttpHeaders, body: Buffer): Promise<Forwarded> {
    let keys: AttributeMap[] = [];
    try {
      keys = this.keysOf(operation, JSON.parse(body.toString('utf8')) as Record<string, unknown>);
    } catch {
      // A malformed request: dynalite answers it with its validation error, and nothing is written.
    }
    const before = keys.length > 0 ? await this.images(keys) : new Map<string, AttributeMap>();
    const answer = await this.forward('POST', headers, body);
    if (answer.status !== 200 || keys.length === 0) return answer;
    const after = await this.images(keys);
    const now = Math.floor(Date.now() / 1000);
    const records: DynamoDBRecord[] = [];
    for (const key of keys) {
      const id = canonical(key);
      const oldImage = before.get(id);
      const newImage = after.get(id);
      if (canonical(oldImage ?? null) === canonical(newImage ?? null)) continue;
      records.push(this.recordOf(key, oldImage, newImage, now));
    }
    if (records.length > 0) this.options.stream.append(records);
    return answer;
  }

  private recordOf(key: AttributeMap, oldImage: AttributeMap | undefined, newImage: AttributeMap | undefined, now: number): DynamoDBRecord {
    this.sequence += 1n;
    const eventName = !oldImage ? 'INSERT' : !newImage ? 'REMOVE' : 'MODIFY';
    return {
      eventID: randomBytes(16).toString('hex'),
      eventName,
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: this.options.region,
      eventSourceARN: this.streamArn,
      dynamodb: {
        ApproximateCreationDateTime: now,
        Keys: key as never,
        ...(newImage ? { NewImage: newImage as never } : {}),
        ...(oldImage ? { OldImage: oldImage as never } : {}),
        SequenceNumber: (10n ** 20n + this.sequence).toString(),
        SizeBytes: Buffer.byteLength(JSON.stringify({ key, oldImage, newImage })),
        StreamViewType: 'NEW_AND_OLD_IMAGES',
      },
    };
  }

  /** The current items at these keys (strongly consistent), by canonical key. */
  private async images(keys: AttributeMap[]): Promise<Map<string, AttributeMap>> {
    const found = new Map<string, AttributeMap>();
    for (let i = 0; i < keys.length; i += BATCH_GET_MAX) {
      const payload = JSON.stringify({ RequestItems: { [this.options.tableName]: { Keys: keys.slice(i, i + BATCH_GET_MAX), ConsistentRead: true } } });
      const answer = await this.forward(
        'POST',
        {
          'content-type': 'application/x-amz-json-1.0',
          'x-amz-target': 'DynamoDB_20120810.BatchGetItem',
          // dynalite checks that a request is signed, not the signature.
          'x-amz-date': new Date().toISOString().replace(/[-:]|\.\d+/g, ''),
          authorization: `AWS4-HMAC-SHA256 Credential=local/20200101/${this.options.region}/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=0`,
          'content-length': String(Buffer.byteLength(payload)),
        },
        Buffer.from(payload),
      );
      const parsed = JSON.parse(answer.body.toString('utf8')) as {
        Responses?: Record<string, AttributeMap[]>;
        UnprocessedKeys?: Record<string, unknown>;
        message?: string;
      };
      if (answer.status !== 200) throw new Error(`reading the items a write touches failed: ${parsed.message ?? answer.status}`);
      if (Object.keys(parsed.UnprocessedKeys ?? {}).length > 0) throw new Error('dynalite left keys unread');
      for (const item of parsed.Responses?.[this.options.tableName] ?? []) {
        found.set(canonical(Object.fromEntries(this.options.keyNames.map((name) => [name, item[name]!]))), item);
      }
    }
    return found;
  }
}
