import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { ResourceKind } from '../../core/records';
import type { VectorBacklog } from '../../ports/vector-backlog';
import { DOCUMENT_CLIENT_OPTIONS, deleteItems, putItems } from './records-table';

/** The partition of a kind's waiting records in the records table: one item per record, sk its id. */
export const vectorBacklogKeyOf = (kind: ResourceKind, id: string) => ({ pk: `vector-backlog#${kind}`, sk: id });

/** The vector backlog in the records table (pk "vector-backlog#<kind>"), in AWS and in the local table alike. */
export class DynamoVectorBacklog implements VectorBacklog {
  private readonly doc: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClient,
    private readonly tableName: string,
    private readonly clock: () => Date = () => new Date(),
  ) {
    this.doc = DynamoDBDocumentClient.from(client, DOCUMENT_CLIENT_OPTIONS);
  }

  async add(kind: ResourceKind, ids: readonly string[]): Promise<void> {
    const addedAt = this.clock().toISOString();
    await putItems(
      this.doc,
      this.tableName,
      [...new Set(ids)].map((id) => ({ ...vectorBacklogKeyOf(kind, id), entity: 'vector_backlog', added_at: addedAt })),
    );
  }

  async list(kind: ResourceKind, limit: number): Promise<string[]> {
    const ids: string[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.doc.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': vectorBacklogKeyOf(kind, '').pk },
          ProjectionExpression: 'sk',
          Limit: limit - ids.length,
          ExclusiveStartKey: start,
        }),
      );
      for (const item of page.Items ?? []) ids.push(String(item.sk));
      start = page.LastEvaluatedKey;
    } while (start && ids.length < limit);
    return ids;
  }

  async remove(kind: ResourceKind, ids: readonly string[]): Promise<void> {
    await deleteItems(
      this.doc,
      this.tableName,
      [...new Set(ids)].map((id) => vectorBacklogKeyOf(kind, id)),
    );
  }
}
