import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { ResourceKind } from '../../core/records';
import { DOCUMENT_CLIENT_OPTIONS } from '../aws/records-table';

/**
 * The durable half of the local change feed. In AWS a DynamoDB stream holds every write until the
 * indexer has taken it, so a crashed indexer loses nothing. Locally the store hands each write to
 * the indexer in the same process, and a process killed between the two (a record stored, not yet
 * indexed, no change event) would leave the index behind the store for good: a later import finds
 * the record unchanged and never writes it again. So each write is journaled first (which records,
 * and the content hash each had before), the entry is closed once the index and the change events
 * have it, and an entry still open at the next start is replayed from the store.
 */
export interface JournalEntry {
  entry_id: string;
  kind: ResourceKind;
  /** Every record the write was for: the content hash it had before, or null when it did not exist. */
  before: Record<string, string | null>;
}

export interface WriteJournal {
  /** Records that a write of these records is about to start; returns the entry's id. */
  open(kind: ResourceKind, before: ReadonlyMap<string, string | null>): Promise<string>;
  /** The write is indexed and its events appended. */
  close(entryId: string): Promise<void>;
  /** Entries never closed (the process stopped mid-write), oldest first. */
  pending(): AsyncIterable<JournalEntry>;
}

const JOURNAL_PK = 'journal#index-writes';

/**
 * The journal in the records table: every entry under one partition key, so the start-up check is
 * one Query (no table scan), with sort keys in write order.
 */
export class DynamoWriteJournal implements WriteJournal {
  private readonly doc: DynamoDBDocumentClient;
  private sequence = 0;

  constructor(
    client: DynamoDBClient,
    private readonly tableName: string,
  ) {
    this.doc = DynamoDBDocumentClient.from(client, DOCUMENT_CLIENT_OPTIONS);
  }

  async open(kind: ResourceKind, before: ReadonlyMap<string, string | null>): Promise<string> {
    const entryId = `${new Date().toISOString()}#${String(this.sequence++).padStart(10, '0')}#${randomUUID()}`;
    await this.doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { pk: JOURNAL_PK, sk: entryId, entity: 'index_journal', kind, before: Object.fromEntries(before) },
      }),
    );
    return entryId;
  }

  async close(entryId: string): Promise<void> {
    await this.doc.send(new DeleteCommand({ TableName: this.tableName, Key: { pk: JOURNAL_PK, sk: entryId } }));
  }

  async *pending(): AsyncIterable<JournalEntry> {
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.doc.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': JOURNAL_PK },
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of page.Items ?? []) {
        yield { entry_id: String(item.sk), kind: item.kind as ResourceKind, before: item.before as Record<string, string | null> };
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey);
  }
}
