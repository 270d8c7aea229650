import * as z from 'zod/mini';
import { AUDIT_ACTIONS, AUDIT_ACTORS } from '../core/accounts/audit';
import { TIER_NAMES } from '../core/auth/tiers';
import { ACCOUNT_API_ERROR_CODES } from '../core/errors';
import { WEBHOOK_EVENTS } from '../core/webhooks/events';
import { ACCOUNT_OPERATIONS, type AccountOperation } from './account-operations';

/**
 * docs/account-api.json: the account API's own OpenAPI 3.1 document (`npm run openapi:account`),
 * made from ACCOUNT_OPERATIONS and their zod schemas. Not part of docs/openapi.json: API keys do
 * not reach these routes, and ID tokens do not reach the public ones.
 */

type JsonSchema = Record<string, unknown>;
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const closedObject = (properties: Record<string, unknown>, required = Object.keys(properties)): JsonSchema => ({
  type: 'object',
  required,
  additionalProperties: false,
  properties,
});
const time = { type: 'string', format: 'date-time' };
const nullable = (schema: JsonSchema) => ({ oneOf: [schema, { type: 'null' }] });
const nullableInteger = { type: ['integer', 'null'] };
const nullableNumber = { type: ['number', 'null'] };

const TOTALS = {
  requests: { type: 'integer' },
  responses: { type: 'integer' },
  errors: { type: 'integer' },
  errors_4xx: { type: 'integer' },
  errors_5xx: { type: 'integer' },
  rate_limited: { type: 'integer' },
  error_rate: nullableNumber,
  p50_ms: nullableNumber,
  p95_ms: nullableNumber,
};

const SCHEMAS: Record<string, JsonSchema> = {
  Error: closedObject(
    {
      error: closedObject(
        {
          code: { type: 'string', enum: [...ACCOUNT_API_ERROR_CODES] },
          message: { type: 'string' },
          details: { type: 'array', items: closedObject({ field: { type: 'string' }, issue: { type: 'string' } }) },
          request_id: { type: 'string' },
        },
        ['code', 'message'],
      ),
    },
    ['error'],
  ),
  Account: closedObject({
    account_id: { type: 'string', pattern: '^acct_[0-9A-Za-z]{16}$' },
    owner_email: { type: 'string', format: 'email' },
    plan: { type: 'string', enum: [...TIER_NAMES] },
    limits: closedObject({
      api_access: { type: 'boolean' },
      daily_quota: { ...nullableInteger, description: 'Requests per UTC day; null is unlimited' },
      matching: { type: 'boolean' },
      webhooks: { type: 'boolean' },
      rate: nullable(closedObject({ per_second: { type: 'number' }, burst: { type: 'integer' } })),
    }),
    created_at: time,
    updated_at: time,
  }),
  Key: closedObject({
    key_id: { type: 'string' },
    prefix: { type: 'string', description: "The key's first characters, to tell keys apart" },
    label: { type: 'string' },
    tier: { type: 'string', enum: [...TIER_NAMES] },
    created_at: time,
    rotated_at: nullable(time),
    previous_valid_until: nullable({ ...time, description: 'Until when the value before the last rotation still works' }),
    revoked_at: nullable(time),
    last_used_at: nullable(time),
  }),
  KeyList: closedObject({
    keys: { type: 'array', items: ref('Key') },
    api_access: { type: 'boolean', description: "Whether the plan's keys may call the API (free: no)" },
    notice: { type: ['string', 'null'], description: 'Why the keys cannot call the API, when they cannot' },
    live_keys: { type: 'integer' },
    max_live_keys: { type: 'integer' },
  }),
  IssuedKey: closedObject({
    key: ref('Key'),
    api_key: { type: ['string', 'null'], description: 'The key itself: shown this once, never stored (null on an idempotent retry)' },
  }),
  UsageTotals: closedObject(TOTALS),
  UsagePeriod: closedObject({ period: { type: 'string', description: 'YYYY-MM-DD, or YYYY-MM-DDTHH by the hour' }, ...TOTALS }),
  Usage: closedObject({
    granularity: { type: 'string', enum: ['day', 'hour'] },
    from: { type: 'string', format: 'date' },
    to: { type: 'string', format: 'date' },
    totals: ref('UsageTotals'),
    periods: { type: 'array', items: ref('UsagePeriod') },
    keys: {
      type: 'array',
      items: closedObject({
        key_id: { type: 'string' },
        totals: ref('UsageTotals'),
        periods: { type: 'array', items: ref('UsagePeriod') },
        today: closedObject({ day: { type: 'string', format: 'date' }, used: { type: 'integer' }, quota: nullableInteger, remaining: nullableInteger }),
      }),
    },
  }),
  RequestLog: closedObject({
    entries: {
      type: 'array',
      items: closedObject({
        at: time,
        method: { type: 'string' },
        path: { type: 'string', description: 'Without its query string' },
        status: { type: 'integer' },
        latency_ms: { type: 'number' },
        request_id: { type: 'string' },
      }),
    },
    next_cursor: { type: ['string', 'null'] },
  }),
  Webhook: closedObject(
    {
      subscription_id: { type: 'string' },
      key_id: { type: 'string', description: 'The key of the account the subscription belongs to' },
      url: { type: 'string', format: 'uri' },
      events: { type: 'array', items: { type: 'string', enum: [...WEBHOOK_EVENTS] } },
      days_before: { type: 'integer', description: '*.deadline_approaching fires this many days (or fewer) before a deadline' },
      filter: { type: ['string', 'null'], description: 'A saved search (list parameters): only events whose record it matches are sent' },
      state: { type: 'string', enum: ['active', 'disabled'] },
      disabled_reason: { type: ['string', 'null'] },
      previous_secret_valid_until: nullable(time),
      rotating: { type: 'boolean', description: 'Whether the secret before the last rotation still signs beside the new one' },
      failing_since: nullable({ ...time, description: "When the receiver's current run of failures began" }),
      created_at: time,
      updated_at: time,
    },
    [
      'subscription_id',
      'key_id',
      'url',
      'events',
      'days_before',
      'state',
      'disabled_reason',
      'previous_secret_valid_until',
      'rotating',
      'created_at',
      'updated_at',
    ],
  ),
  WebhookList: closedObject({ webhooks: { type: 'array', items: ref('Webhook') } }),
  AuditPage: closedObject({
    entries: {
      type: 'array',
      items: closedObject({
        at: time,
        actor: { type: 'string', enum: [...AUDIT_ACTORS] },
        action: { type: 'string', enum: [...AUDIT_ACTIONS] },
        target: { type: 'string' },
        detail: { type: 'object', additionalProperties: { type: ['string', 'number', 'boolean', 'null'] } },
      }),
    },
    next_cursor: { type: ['string', 'null'] },
  }),
};

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'A bad query parameter or body field, or an unknown one (INVALID_PARAMETER, naming each)',
  401: 'No ID token, or one that is malformed, forged, expired, for another client or with an unverified e-mail (UNAUTHORIZED)',
  403: 'FORBIDDEN: the plan does not include this (webhooks need the developer plan)',
  404: "No such id in the caller's account (another account's ids answer the same)",
  405: 'The path does not serve this method',
  409: 'CONFLICT: the live-key cap is reached, the key is revoked, the Idempotency-Key was used for another request, or a webhook cannot be turned on (its key revoked, its destination no longer allowed)',
  503: "The issuer's signing keys could not be fetched; try again",
};

const errorResponse = (status: number) => ({
  description: ERROR_DESCRIPTIONS[status],
  content: { 'application/json': { schema: ref('Error') } },
});

const strip = ({ $schema: _omit, ...rest }: Record<string, unknown>) => rest;

function parametersOf(operation: AccountOperation): JsonSchema[] {
  const pathParameters = [...operation.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
  const query = operation.query ? (strip(z.toJSONSchema(operation.query, { target: 'draft-2020-12', io: 'input' })) as JsonSchema) : { properties: {} };
  const queryParameters = Object.entries((query.properties ?? {}) as Record<string, JsonSchema>).map(([name, schema]) => {
    const { description, ...rest } = schema;
    return { name, in: 'query', required: false, ...(description ? { description } : {}), schema: rest };
  });
  const idempotency =
    operation.operationId === 'createKey'
      ? [
          {
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            description: 'A retry with the same value within 24 hours answers with the key made first',
            schema: { type: 'string', maxLength: 200 },
          },
        ]
      : [];
  return [...pathParameters, ...queryParameters, ...idempotency];
}

function operationObject(operation: AccountOperation): JsonSchema {
  const parameters = parametersOf(operation);
  const errors = [400, 401, ...operation.errors, 503].sort((a, b) => a - b);
  return {
    operationId: operation.operationId,
    summary: operation.summary,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(operation.body
      ? {
          requestBody: {
            required: !z.safeParse(operation.body, {}).success,
            content: { 'application/json': { schema: strip(z.toJSONSchema(operation.body, { target: 'draft-2020-12', io: 'input' })) } },
          },
        }
      : {}),
    responses: {
      [operation.success.status]: { description: operation.success.description, content: { 'application/json': { schema: ref(operation.success.schema) } } },
      ...Object.fromEntries(errors.map((status) => [status, errorResponse(status)])),
    },
  };
}

export function buildAccountOpenApiDocument(operations: readonly AccountOperation[] = ACCOUNT_OPERATIONS): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const operation of operations) {
    paths[operation.path] ??= {};
    paths[operation.path]![operation.method.toLowerCase()] = operationObject(operation);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Grants, Contracts and Funders Data Service: account API',
      version: '1.0.0',
      description:
        "The developer dashboard's API: the signed-in person's account, API keys, usage, request log, audit log and webhook subscriptions (listed, and turned off or on). Authenticate with the OIDC ID token of the dashboard's sign-in as `Authorization: Bearer <ID token>`; API keys are not accepted here. The account is found by the token's verified e-mail and made at the first sign-in. Ids of another account answer 404.",
    },
    servers: [{ url: '/functions/v1' }],
    security: [{ idToken: [] }],
    paths,
    components: {
      securitySchemes: {
        idToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: "The OIDC ID token of the dashboard's sign-in (Cognito in AWS, the local provider of `npm start`)",
        },
      },
      schemas: SCHEMAS,
    },
  };
}
