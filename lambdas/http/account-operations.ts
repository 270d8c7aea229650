import { randomBytes } from 'node:crypto';
import * as z from 'zod/mini';
import type { Account } from '../core/accounts/account';
import { invalidParameters } from '../core/errors';
import { parseRequestLogQuery } from '../core/usage/request-log';
import {
  accountView,
  createOwnerKey,
  listOwnerKeys,
  listOwnerWebhooks,
  MAX_OWNER_GRACE_HOURS,
  ownerWebhook,
  readOwnerAudit,
  revokeOwnerKey,
  rotateOwnerKey,
  setOwnerWebhookState,
} from '../core/use-cases/account-self-service';
import { parseUsageQuery, readAccountUsage, readRequestLog, USAGE_MAX_DAYS } from '../core/use-cases/account-usage';
import { accountKey } from '../core/use-cases/manage-accounts';
import { DEFAULT_ROTATION_GRACE_HOURS } from '../core/use-cases/manage-keys';
import type { AccountServices } from '../ports/account-services';
import { describedAs, expected, type ObjectSchema } from './account-request';
import type { ApiEvent } from './api-gateway';
import { headerOf } from './headers';

/**
 * The account API's operations: method, path, the zod schemas of their query and body, and what
 * each does. The router (account-router.ts) matches and authenticates; the OpenAPI document
 * (account-openapi.ts) is made from this same table.
 */

export type AccountMethod = 'GET' | 'POST' | 'PATCH';

export interface OperationContext<Q, B> {
  services: AccountServices;
  /** The caller's account (found, or made at the first sign-in, by the ID token's verified e-mail). */
  account: Account;
  params: Record<string, string>;
  query: Q;
  body: B;
  event: ApiEvent;
  now: Date;
}

export interface OperationAnswer {
  status: number;
  body: unknown;
}

export interface AccountOperation<Q extends ObjectSchema = ObjectSchema, B extends ObjectSchema = ObjectSchema> {
  method: AccountMethod;
  /** Under the version root, e.g. /account/keys/{key_id}/rotate. */
  path: string;
  operationId: string;
  summary: string;
  query?: Q;
  body?: B;
  /** What the body looks like, for the 400 of a body that is not a JSON object. */
  bodyShape?: string;
  /** The success status and the response's schema name in account-openapi.ts. */
  success: { status: number; schema: string; description: string };
  /** Error statuses beyond 400, 401 and 503, which every operation may answer. */
  errors: readonly number[];
  run(context: OperationContext<z.infer<Q>, z.infer<B>>): Promise<OperationAnswer>;
}

const LABEL_MAX = 100;
const AUDIT_DEFAULT_LIMIT = 50;
const AUDIT_MAX_LIMIT = 100;
const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,200}$/;

export const CreateKeyBody = z.strictObject({
  label: describedAs(
    z.string(expected('a string')).check(z.trim(), z.minLength(1, 'must not be empty'), z.maxLength(LABEL_MAX, `must be at most ${LABEL_MAX} characters`)),
    'What the key is for, shown in the key list (e.g. "staging server")',
  ),
});

const graceIssue = `must be an integer from 0 to ${MAX_OWNER_GRACE_HOURS}`;
export const RotateKeyBody = z.strictObject({
  grace_hours: z.optional(
    describedAs(
      z.number(expected('an integer')).check(z.int(graceIssue), z.gte(0, graceIssue), z.lte(MAX_OWNER_GRACE_HOURS, graceIssue)),
      `Hours the old key keeps working (default ${DEFAULT_ROTATION_GRACE_HOURS}, 0 ends it now)`,
    ),
  ),
});

export const UsageQuerySchema = z.strictObject({
  granularity: z.optional(describedAs(z.enum(['day', 'hour'], { error: 'must be day or hour' }), 'Rows per day (the default) or per hour')),
  days: z.optional(
    describedAs(
      z.string().check(z.regex(/^\d{1,2}$/, `must be an integer from 1 to ${USAGE_MAX_DAYS}`)),
      `UTC days back, 1 to ${USAGE_MAX_DAYS} (default ${USAGE_MAX_DAYS})`,
    ),
  ),
  key_id: z.optional(describedAs(z.string(), 'Only this key of the account')),
});

export const WebhookStateBody = z.strictObject({
  state: describedAs(z.enum(['active', 'disabled'], { error: 'must be active or disabled' }), 'disabled stops deliveries; active turns them on again'),
});

export const RequestsQuerySchema = z.strictObject({
  limit: z.optional(describedAs(z.string(), 'Entries per page, 1 to 200 (default 50)')),
  cursor: z.optional(describedAs(z.string(), "The previous page's next_cursor")),
});

export const AuditQuerySchema = z.strictObject({
  limit: z.optional(describedAs(z.string(), `Entries per page, 1 to ${AUDIT_MAX_LIMIT} (default ${AUDIT_DEFAULT_LIMIT})`)),
  before: z.optional(describedAs(z.string(), "The previous page's next_cursor")),
});

function auditLimitOf(raw: string | undefined): number {
  if (raw === undefined) return AUDIT_DEFAULT_LIMIT;
  const limit = /^\d{1,3}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(limit >= 1 && limit <= AUDIT_MAX_LIMIT)) throw invalidParameters([{ field: 'limit', issue: `must be an integer from 1 to ${AUDIT_MAX_LIMIT}` }]);
  return limit;
}

function idempotencyKeyOf(event: ApiEvent): string | undefined {
  const value = headerOf(event.headers, 'Idempotency-Key');
  if (value === undefined) return undefined;
  if (!IDEMPOTENCY_KEY_PATTERN.test(value)) throw invalidParameters([{ field: 'Idempotency-Key', issue: 'must be 1 to 200 visible ASCII characters' }]);
  return value;
}

const making = (now: Date) => ({ randomBytes: (size: number) => randomBytes(size), now });

/** Declares an operation with its schemas' types flowing into `run`. */
function operation<Q extends ObjectSchema, B extends ObjectSchema>(op: AccountOperation<Q, B>): AccountOperation {
  return op as unknown as AccountOperation;
}

export const ACCOUNT_OPERATIONS: readonly AccountOperation[] = [
  operation({
    method: 'GET',
    path: '/account',
    operationId: 'getAccount',
    summary: "The caller's account, its plan and the plan's limits",
    success: { status: 200, schema: 'Account', description: 'The account (made at the first sign-in)' },
    errors: [],
    run: async ({ services, account }) => ({ status: 200, body: accountView(account, services.tiers) }),
  }),
  operation({
    method: 'GET',
    path: '/account/keys',
    operationId: 'listKeys',
    summary: "The account's API keys, revoked ones too, oldest first",
    success: { status: 200, schema: 'KeyList', description: 'The keys (never their values)' },
    errors: [],
    run: async ({ services, account }) => ({ status: 200, body: await listOwnerKeys(services, account) }),
  }),
  operation({
    method: 'POST',
    path: '/account/keys',
    operationId: 'createKey',
    summary: "A new key on the account's plan; its value is shown once. An Idempotency-Key header makes retries safe",
    body: CreateKeyBody,
    bodyShape: '{"label": "..."}',
    success: { status: 201, schema: 'IssuedKey', description: 'The key, and its value (null on a retry with the same Idempotency-Key)' },
    errors: [409],
    run: async ({ services, account, body, event, now }) => {
      const issued = await createOwnerKey(services, account, { label: body.label, idempotencyKey: idempotencyKeyOf(event) }, making(now));
      return { status: 201, body: { key: issued.key, api_key: issued.api_key } };
    },
  }),
  operation({
    method: 'POST',
    path: '/account/keys/{key_id}/rotate',
    operationId: 'rotateKey',
    summary: 'A new value for the key; the old one keeps working for grace_hours',
    body: RotateKeyBody,
    bodyShape: '{"grace_hours": 0-168}',
    success: { status: 200, schema: 'IssuedKey', description: 'The key and its new value, shown once' },
    errors: [404, 409],
    run: async ({ services, account, params, body, now }) => ({
      status: 200,
      body: await rotateOwnerKey(services, account, params.key_id!, body.grace_hours ?? DEFAULT_ROTATION_GRACE_HOURS, making(now)),
    }),
  }),
  operation({
    method: 'POST',
    path: '/account/keys/{key_id}/revoke',
    operationId: 'revokeKey',
    summary: 'Revokes the key at once, both its values (again: no change)',
    success: { status: 200, schema: 'Key', description: 'The revoked key' },
    errors: [404],
    run: async ({ services, account, params, now }) => ({ status: 200, body: await revokeOwnerKey(services, account, params.key_id!, now) }),
  }),
  operation({
    method: 'GET',
    path: '/account/usage',
    operationId: 'getUsage',
    summary: 'Requests, errors and latency per day or hour, per key and in all, and each key’s quota today',
    query: UsageQuerySchema,
    success: { status: 200, schema: 'Usage', description: 'The usage of the account’s keys (or of key_id)' },
    errors: [404],
    run: async ({ services, account, query, now }) => {
      const parsed = parseUsageQuery({ granularity: query.granularity, days: query.days });
      const keys = query.key_id ? [await accountKey(services.keys, account.account_id, query.key_id)] : await services.keys.listByAccount(account.account_id);
      return { status: 200, body: await readAccountUsage(services, keys, parsed, now) };
    },
  }),
  operation({
    method: 'GET',
    path: '/account/keys/{key_id}/requests',
    operationId: 'listKeyRequests',
    summary: "The key's recent requests, newest first (method, path, status, latency; never a query string or body)",
    query: RequestsQuerySchema,
    success: { status: 200, schema: 'RequestLog', description: 'A page of the log' },
    errors: [404],
    run: async ({ services, account, params, query, now }) => {
      const page = parseRequestLogQuery({ limit: query.limit, cursor: query.cursor });
      await accountKey(services.keys, account.account_id, params.key_id!);
      return { status: 200, body: await readRequestLog(services.requestLog, params.key_id!, page, now) };
    },
  }),
  operation({
    method: 'GET',
    path: '/account/audit',
    operationId: 'listAudit',
    summary: 'Who changed what on the account (owner, operator, system), newest first',
    query: AuditQuerySchema,
    success: { status: 200, schema: 'AuditPage', description: 'A page of the audit log' },
    errors: [],
    run: async ({ services, account, query }) => ({
      status: 200,
      body: await readOwnerAudit(services.accounts, account, { limit: auditLimitOf(query.limit), ...(query.before ? { before: query.before } : {}) }),
    }),
  }),
  operation({
    method: 'GET',
    path: '/account/webhooks',
    operationId: 'listWebhooks',
    summary: "The webhook subscriptions of the account's keys, oldest first (never their secrets)",
    success: { status: 200, schema: 'WebhookList', description: 'The subscriptions' },
    errors: [],
    run: async ({ services, account, now }) => ({ status: 200, body: await listOwnerWebhooks(services, account, now) }),
  }),
  operation({
    method: 'GET',
    path: '/account/webhooks/{webhook_id}',
    operationId: 'getWebhook',
    summary: 'One webhook subscription of the account (never its secrets)',
    success: { status: 200, schema: 'Webhook', description: 'The subscription' },
    errors: [404],
    run: async ({ services, account, params, now }) => ({ status: 200, body: await ownerWebhook(services, account, params.webhook_id!, now) }),
  }),
  operation({
    method: 'PATCH',
    path: '/account/webhooks/{webhook_id}',
    operationId: 'setWebhookState',
    summary: 'Turns the subscription off or on (again: no change); on checks the plan, the key and the destination again',
    body: WebhookStateBody,
    bodyShape: '{"state": "active" | "disabled"}',
    success: { status: 200, schema: 'Webhook', description: 'The subscription' },
    errors: [403, 404, 409],
    run: async ({ services, account, params, body, now }) => ({
      status: 200,
      body: await setOwnerWebhookState(services, account, params.webhook_id!, body.state, services.destinationMode, now),
    }),
  }),
];
