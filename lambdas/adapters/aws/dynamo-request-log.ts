import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { decodeRequestLogCursor, encodeRequestLogCursor, REQUEST_LOG_RETENTION_DAYS, requestLogHorizon } from '../../core/usage/request-log';
import type { RequestLog, RequestLogEntry, RequestLogPage } from '../../ports/request-log';
import { DOCUMENT_CLIENT_OPTIONS } from './records-table';

/**
 * Each key's recent requests in the records table: pk "reqlog#<key_id>", sk "<ISO time>#<request id>",
 * so a partition reads newest first by its sort key. Items carry a TTL (expires_at) that DynamoDB
 * acts on; reads bound the sort key to the retention window, so an item past it is never returned
 * where nothing expires it (dynalite) or before DynamoDB gets to it.
 */

export const requestLogPartition = (keyId: string) => `reqlog#${keyId}`;

export class DynamoRequestLog implements RequestLog {
  private readonly doc: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClient,
    private readonly tableName: string,
  ) {
    this.doc = DynamoDBDocumentClient.from(client, DOCUMENT_CLIENT_OPTIONS);
  }

  async append(keyId: string, entry: RequestLogEntry): Promise<void> {
    await this.doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          pk: requestLogPartition(keyId),
          sk: `${entry.at}#${entry.requestId}`,
          entity: 'request-log',
          at: entry.at,
          method: entry.method,
          path: entry.path,
          status: entry.status,
          latency_ms: entry.latencyMs,
          request_id: entry.requestId,
          expires_at: Math.floor(Date.parse(entry.at) / 1000) + REQUEST_LOG_RETENTION_DAYS * 86_400,
        },
      }),
    );
  }

  async recent(keyId: string, page: { limit: number; cursor: string | null; now: Date }): Promise<RequestLogPage> {
    const pk = requestLogPartition(keyId);
    const { Items = [] } = await this.doc.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND sk > :horizon',
        ExpressionAttributeValues: { ':pk': pk, ':horizon': requestLogHorizon(page.now).toISOString() },
        ScanIndexForward: false,
        // One more than asked: whether there is an older page.
        Limit: page.limit + 1,
        ...(page.cursor ? { ExclusiveStartKey: { pk, sk: decodeRequestLogCursor(page.cursor) } } : {}),
      }),
    );
    const shown = Items.slice(0, page.limit);
    return {
      entries: shown.map((item) => ({
        at: String(item.at),
        method: String(item.method),
        path: String(item.path),
        status: Number(item.status),
        latencyMs: Number(item.latency_ms),
        requestId: String(item.request_id),
      })),
      nextCursor: Items.length > page.limit ? encodeRequestLogCursor(String(shown.at(-1)!.sk)) : null,
    };
  }
}
