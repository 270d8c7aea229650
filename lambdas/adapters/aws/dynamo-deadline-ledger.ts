import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { DeadlineLedger } from '../../ports/deadline-ledger';
import { DOCUMENT_CLIENT_OPTIONS } from './records-table';

/** Deadline reminder markers in the records table (pk "deadline-sent#<marker>"), removed by TTL after the deadline. */
export class DynamoDeadlineLedger implements DeadlineLedger {
  private readonly doc: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClient,
    private readonly tableName: string,
  ) {
    this.doc = DynamoDBDocumentClient.from(client, DOCUMENT_CLIENT_OPTIONS);
  }

  async has(marker: string): Promise<boolean> {
    const { Item } = await this.doc.send(
      new GetCommand({ TableName: this.tableName, Key: { pk: `deadline-sent#${marker}`, sk: 'marker' }, ConsistentRead: true }),
    );
    return Item !== undefined;
  }

  async claim(marker: string, expiresAt: Date): Promise<boolean> {
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { pk: `deadline-sent#${marker}`, sk: 'marker', entity: 'deadline_marker', expires_at: Math.floor(expiresAt.getTime() / 1000) },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }
}
