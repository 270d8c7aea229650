import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DeleteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { TierName } from '../../core/auth/tiers';
import { type ApiKeyRecord, type IdempotencyClaim, KeyStateConflict, type KeyStore } from '../../ports/key-store';
import { DOCUMENT_CLIENT_OPTIONS, entityFilter, scanPages, withoutItemKeys } from './records-table';

/**
 * API keys in the records table. Two kinds of item: the key (pk "apikey#<key_id>") and, for each
 * hash that may authenticate, a pointer (pk "apikeyhash#<sha256>") naming its key. A request is
 * two reads by key, never a scan; a pointer whose hash the key no longer lists authenticates
 * nothing, so a rotation that lost a race leaves no usable stray. A key of an account also has a
 * link item in the account's partition (pk "account#<account_id>", sk "key#<created_at>#<key_id>"),
 * so an account's keys are one query, never a scan; it is written before the key names the
 * account, so a key with an account_id always has its link.
 */

const KEY_SK = 'key';
const HASH_SK = 'hash';
const KEY_ENTITY = 'api_key';
const keyKey = (keyId: string) => ({ pk: `apikey#${keyId}`, sk: KEY_SK });
const hashKey = (hash: string) => ({ pk: `apikeyhash#${hash}`, sk: HASH_SK });
const claimKey = (hash: string) => ({ pk: `apikeyidem#${hash}`, sk: 'claim' });
export const accountKeyLinkKey = (accountId: string, key: Pick<ApiKeyRecord, 'key_id' | 'created_at'>) => ({
  pk: `account#${accountId}`,
  sk: `key#${key.created_at}#${key.key_id}`,
});
const BATCH_GET_MAX = 100;
const epochSeconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

const keyOfItem = (item: Record<string, unknown>) => withoutItemKeys(item) as unknown as ApiKeyRecord;

export class DynamoKeyStore implements KeyStore {
  private readonly doc: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClient,
    private readonly tableName: string,
  ) {
    this.doc = DynamoDBDocumentClient.from(client, DOCUMENT_CLIENT_OPTIONS);
  }

  async create(key: ApiKeyRecord): Promise<void> {
    await this.doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...hashKey(key.current_hash), key_id: key.key_id },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    if (key.account_id) await this.putAccountLink(key.account_id, key);
    await this.doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...keyKey(key.key_id), entity: KEY_ENTITY, ...key },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async claimIdempotencyKey(hash: string, claim: IdempotencyClaim, now: string): Promise<IdempotencyClaim | null> {
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...claimKey(hash),
            entity: 'api_key_claim',
            key_id: claim.key_id,
            fingerprint: claim.fingerprint,
            expires_at: epochSeconds(claim.expires_at),
          },
          // TTL removes lapsed claims only eventually (and dynalite never): a lapsed one is taken over here.
          ConditionExpression: 'attribute_not_exists(pk) OR expires_at <= :now',
          ExpressionAttributeValues: { ':now': epochSeconds(now) },
        }),
      );
      return null;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const { Item } = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: claimKey(hash), ConsistentRead: true }));
      if (!Item) return this.claimIdempotencyKey(hash, claim, now); // it lapsed and was removed meanwhile
      return { key_id: String(Item.key_id), fingerprint: String(Item.fingerprint), expires_at: new Date(Number(Item.expires_at) * 1000).toISOString() };
    }
  }

  async get(keyId: string): Promise<ApiKeyRecord | null> {
    const { Item } = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: keyKey(keyId), ConsistentRead: true }));
    return Item ? keyOfItem(Item) : null;
  }

  async findByHash(hash: string): Promise<ApiKeyRecord | null> {
    const { Item: pointer } = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: hashKey(hash) }));
    if (!pointer) return null;
    const key = await this.get(String(pointer.key_id));
    return key && (key.current_hash === hash || key.previous_hash === hash) ? key : null;
  }

  async list(): Promise<ApiKeyRecord[]> {
    const keys: ApiKeyRecord[] = [];
    for await (const items of scanPages(this.doc, entityFilter(this.tableName, KEY_ENTITY))) keys.push(...items.map(keyOfItem));
    return keys.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.key_id.localeCompare(b.key_id));
  }

  private async putAccountLink(accountId: string, key: Pick<ApiKeyRecord, 'key_id' | 'created_at'>): Promise<void> {
    await this.doc.send(
      new PutCommand({ TableName: this.tableName, Item: { ...accountKeyLinkKey(accountId, key), entity: 'account_key_link', key_id: key.key_id } }),
    );
  }

  async listByAccount(accountId: string): Promise<ApiKeyRecord[]> {
    const keyIds: string[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.doc.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :key)',
          ExpressionAttributeValues: { ':pk': `account#${accountId}`, ':key': 'key#' },
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of page.Items ?? []) keyIds.push(String(item.key_id));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    const byId = new Map<string, ApiKeyRecord>();
    for (let i = 0; i < keyIds.length; i += BATCH_GET_MAX) {
      for (const key of await this.batchGet(keyIds.slice(i, i + BATCH_GET_MAX))) byId.set(key.key_id, key);
    }
    // A link whose key write never landed (a create that stopped half-way) names no key.
    return keyIds.map((id) => byId.get(id)).filter((key): key is ApiKeyRecord => key?.account_id === accountId);
  }

  private async batchGet(keyIds: readonly string[]): Promise<ApiKeyRecord[]> {
    const found: ApiKeyRecord[] = [];
    let keys: Record<string, unknown>[] = keyIds.map(keyKey);
    while (keys.length > 0) {
      const out = await this.doc.send(new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: keys, ConsistentRead: true } } }));
      found.push(...(out.Responses?.[this.tableName] ?? []).map(keyOfItem));
      keys = (out.UnprocessedKeys?.[this.tableName]?.Keys ?? []) as Record<string, unknown>[];
    }
    return found;
  }

  async assignAccount(keyId: string, accountId: string): Promise<ApiKeyRecord> {
    const key = await this.get(keyId);
    if (!key) throw new KeyStateConflict(`no key ${keyId}`);
    if (key.account_id === accountId) return key;
    if (key.account_id) throw new KeyStateConflict(`key ${keyId} belongs to account ${key.account_id}`);
    await this.putAccountLink(accountId, key);
    try {
      const { Attributes } = await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keyKey(keyId),
          UpdateExpression: 'SET account_id = :account',
          ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(account_id) OR account_id = :account)',
          ExpressionAttributeValues: { ':account': accountId },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return keyOfItem(Attributes!);
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      await this.doc.send(new DeleteCommand({ TableName: this.tableName, Key: accountKeyLinkKey(accountId, key) }));
      throw new KeyStateConflict(`key ${keyId} joined another account meanwhile`);
    }
  }

  async rotate(keyId: string, expectedCurrentHash: string, next: { hash: string; prefix: string }, graceUntil: string, now: string): Promise<ApiKeyRecord> {
    await this.doc.send(
      new PutCommand({ TableName: this.tableName, Item: { ...hashKey(next.hash), key_id: keyId }, ConditionExpression: 'attribute_not_exists(pk)' }),
    );
    try {
      const { Attributes } = await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keyKey(keyId),
          UpdateExpression: 'SET previous_hash = current_hash, previous_valid_until = :grace, current_hash = :next, prefix = :prefix, rotated_at = :now',
          ConditionExpression: 'attribute_exists(pk) AND current_hash = :expected AND revoked_at = :null',
          ExpressionAttributeValues: {
            ':grace': graceUntil,
            ':next': next.hash,
            ':prefix': next.prefix,
            ':now': now,
            ':expected': expectedCurrentHash,
            ':null': null,
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return keyOfItem(Attributes!);
    } catch (error) {
      await this.doc.send(new DeleteCommand({ TableName: this.tableName, Key: hashKey(next.hash) }));
      if (error instanceof ConditionalCheckFailedException) throw new KeyStateConflict(`key ${keyId} was revoked or rotated meanwhile; nothing changed`);
      throw error;
    }
  }

  async revoke(keyId: string, now: string): Promise<ApiKeyRecord> {
    try {
      const { Attributes } = await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keyKey(keyId),
          UpdateExpression: 'SET revoked_at = :now',
          ConditionExpression: 'attribute_exists(pk) AND revoked_at = :null',
          ExpressionAttributeValues: { ':now': now, ':null': null },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return keyOfItem(Attributes!);
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      // Revoked already (the first time stands), or no such key.
      const key = await this.get(keyId);
      if (!key) throw new KeyStateConflict(`no key ${keyId}`);
      return key;
    }
  }

  async setTier(keyId: string, tier: TierName): Promise<ApiKeyRecord> {
    try {
      const { Attributes } = await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keyKey(keyId),
          UpdateExpression: 'SET tier = :tier',
          // Conditional on the record, so a revocation racing a tier change always stands.
          ConditionExpression: 'attribute_exists(pk) AND revoked_at = :null',
          ExpressionAttributeValues: { ':tier': tier, ':null': null },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return keyOfItem(Attributes!);
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const key = await this.get(keyId);
      throw new KeyStateConflict(key ? `key ${keyId} is revoked; create a new one` : `no key ${keyId}`);
    }
  }

  async clearGatewayKey(keyId: string): Promise<ApiKeyRecord> {
    try {
      const { Attributes } = await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keyKey(keyId),
          UpdateExpression: 'REMOVE usage_key, api_key_id',
          ConditionExpression: 'attribute_exists(pk)',
          ReturnValues: 'ALL_NEW',
        }),
      );
      return keyOfItem(Attributes!);
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) throw new KeyStateConflict(`no key ${keyId}`);
      throw error;
    }
  }
}
