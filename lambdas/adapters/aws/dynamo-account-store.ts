import { randomBytes } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Account } from '../../core/accounts/account';
import type { AuditEntry } from '../../core/accounts/audit';
import type { TierName } from '../../core/auth/tiers';
import { invalidParameters } from '../../core/errors';
import { AccountConflict, type AccountStore, type Page } from '../../ports/account-store';
import { DOCUMENT_CLIENT_OPTIONS, withoutItemKeys } from './records-table';

/**
 * Accounts in the records table. Four kinds of item:
 * - the account, in its own partition (pk "account#<id>", sk "account"), read on every call an
 *   owner makes, so reads spread over accounts;
 * - a directory entry per account in one partition (pk "accounts", sk "account#<id>"), so
 *   operators page through every account with a query, not a scan of the records;
 * - an owner claim per e-mail (pk "accountowner#<email>"), written with a conditional put before
 *   the rest: of two first sign-ins racing, one claim wins and both answer with its account. The
 *   claim holds the whole new account, so a create that stopped after the claim is finished by the
 *   next reader instead of leaving the e-mail blocked;
 * - audit entries beside the account (pk "account#<id>", sk "audit#<at>#<random>"), and its key
 *   links (dynamo-key-store.ts), read newest first.
 */

export const ACCOUNTS_PARTITION = 'accounts';
export const ACCOUNT_ENTITY = 'account';
const accountKey = (accountId: string) => ({ pk: `account#${accountId}`, sk: 'account' });
const directoryKey = (accountId: string) => ({ pk: ACCOUNTS_PARTITION, sk: `account#${accountId}` });
const ownerKey = (email: string) => ({ pk: `accountowner#${email}`, sk: 'owner' });
const accountPartition = (accountId: string) => `account#${accountId}`;
const AUDIT_SK_PREFIX = 'audit#';
const BATCH_GET_MAX = 100;

const accountOf = (item: Record<string, unknown>) => withoutItemKeys(item) as unknown as Account;

function auditOf(item: Record<string, unknown>): AuditEntry {
  const { account_id, at, actor, action, target, detail } = item as unknown as AuditEntry;
  return { account_id, at, actor, action, target, detail };
}

/** Cursors are the last item's sort key, base64url: opaque to callers, checked when they come back. */
const encodeCursor = (sk: string) => Buffer.from(sk, 'utf8').toString('base64url');
function decodeCursor(cursor: string, prefix: string, field: string): string {
  const sk = /^[A-Za-z0-9_-]{1,400}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  if (!sk.startsWith(prefix)) throw invalidParameters([{ field, issue: 'is not a cursor this list returned' }]);
  return sk;
}

export class DynamoAccountStore implements AccountStore {
  private readonly doc: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClient,
    private readonly tableName: string,
  ) {
    this.doc = DynamoDBDocumentClient.from(client, DOCUMENT_CLIENT_OPTIONS);
  }

  async get(accountId: string): Promise<Account | null> {
    const { Item } = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: accountKey(accountId), ConsistentRead: true }));
    return Item ? accountOf(Item) : null;
  }

  async findByOwner(email: string): Promise<Account | null> {
    const { Item: claim } = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: ownerKey(email), ConsistentRead: true }));
    if (!claim) return null;
    return (await this.get(String(claim.account_id))) ?? (await this.finish(claim.account as Account));
  }

  async create(account: Account): Promise<{ account: Account; created: boolean }> {
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...ownerKey(account.owner_email), entity: 'account_owner', account_id: account.account_id, account },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const existing = await this.findByOwner(account.owner_email);
      if (!existing) throw new AccountConflict(`the owner claim of ${account.account_id} vanished; try again`);
      return { account: existing, created: false };
    }
    return { account: await this.finish(account), created: true };
  }

  /** Writes the account a claim holds, unless it is there already (the claimant or another reader wrote it). */
  private async finish(account: Account): Promise<Account> {
    // Listed first: a directory entry whose account is not written yet is skipped by listAccounts.
    await this.doc.send(
      new PutCommand({ TableName: this.tableName, Item: { ...directoryKey(account.account_id), entity: 'account_directory', account_id: account.account_id } }),
    );
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...accountKey(account.account_id), entity: ACCOUNT_ENTITY, ...account },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return account;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      return (await this.get(account.account_id))!;
    }
  }

  async setPlan(accountId: string, plan: TierName, now: string): Promise<Account> {
    try {
      const { Attributes } = await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: accountKey(accountId),
          UpdateExpression: 'SET #plan = :plan, updated_at = :now',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#plan': 'plan' },
          ExpressionAttributeValues: { ':plan': plan, ':now': now },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return accountOf(Attributes!);
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) throw new AccountConflict(`no account ${accountId}`);
      throw error;
    }
  }

  async appendAudit(entry: AuditEntry): Promise<void> {
    // The random tail keeps two entries of the same millisecond apart.
    const sk = `${AUDIT_SK_PREFIX}${entry.at}#${randomBytes(6).toString('hex')}`;
    await this.doc.send(new PutCommand({ TableName: this.tableName, Item: { pk: accountPartition(entry.account_id), sk, entity: 'account_audit', ...entry } }));
  }

  async listAudit(accountId: string, options: { limit: number; before?: string }): Promise<Page<AuditEntry>> {
    const pk = accountPartition(accountId);
    return this.page(pk, AUDIT_SK_PREFIX, options.limit, options.before, 'before', false, auditOf);
  }

  async listAccounts(options: { limit: number; after?: string }): Promise<Page<Account>> {
    const page = await this.page(ACCOUNTS_PARTITION, 'account#', options.limit, options.after, 'after', true, (item) => String(item.account_id));
    const found = await this.batchGet(page.items);
    return { items: page.items.map((id) => found.get(id)).filter((a): a is Account => a !== undefined), next: page.next };
  }

  private async batchGet(accountIds: readonly string[]): Promise<Map<string, Account>> {
    const found = new Map<string, Account>();
    for (let i = 0; i < accountIds.length; i += BATCH_GET_MAX) {
      let keys: Record<string, unknown>[] = accountIds.slice(i, i + BATCH_GET_MAX).map(accountKey);
      while (keys.length > 0) {
        const out = await this.doc.send(new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: keys, ConsistentRead: true } } }));
        for (const item of out.Responses?.[this.tableName] ?? []) found.set(String(item.account_id), accountOf(item));
        keys = (out.UnprocessedKeys?.[this.tableName]?.Keys ?? []) as Record<string, unknown>[];
      }
    }
    return found;
  }

  /** One page of a partition's items under `prefix`; one item more is read to know whether another page follows. */
  private async page<T>(
    pk: string,
    prefix: string,
    limit: number,
    cursor: string | undefined,
    cursorField: string,
    forward: boolean,
    of: (item: Record<string, unknown>) => T,
  ): Promise<Page<T>> {
    const from = cursor === undefined ? undefined : decodeCursor(cursor, prefix, cursorField);
    const items: Record<string, unknown>[] = [];
    let startKey: Record<string, unknown> | undefined = from === undefined ? undefined : { pk, sk: from };
    do {
      const page = await this.doc.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
          ExclusiveStartKey: startKey,
          Limit: limit + 1 - items.length,
          ScanIndexForward: forward,
          ConsistentRead: true,
        }),
      );
      items.push(...(page.Items ?? []));
      startKey = page.LastEvaluatedKey;
    } while (startKey && items.length <= limit);
    const shown = items.slice(0, limit);
    const last = shown.at(-1);
    return { items: shown.map(of), next: items.length > limit && last ? encodeCursor(String(last.sk)) : null };
  }
}
