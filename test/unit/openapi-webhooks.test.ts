import { describe, expect, it } from 'vitest';
import { changeEventOf } from '../../lambdas/core/change-feed';
import type { ResourceKind } from '../../lambdas/core/records';
import { sendTestEvent } from '../../lambdas/core/use-cases/test-webhook';
import { deliveryHeaders, webhookBody } from '../../lambdas/core/webhooks/delivery-policy';
import { kindOfEvent, WEBHOOK_EVENTS, WEBHOOK_TEST_EVENT } from '../../lambdas/core/webhooks/events';
import { verifyServiceSignature, verifyWebhookSignature } from '../../lambdas/core/webhooks/signature';
import { buildOpenApiDocument } from '../../lambdas/http/openapi';
import { EXAMPLE_WEBHOOK_SECRET } from '../../lambdas/http/openapi-webhooks';
import type { WebhookSubscription } from '../../lambdas/ports/webhook-store';
import type { WebhookAttempt } from '../../lambdas/ports/webhook-transport';
import { DEFAULT_CATALOGUE, generateContracts, generateFunders, generateGrants } from '../../local/synthetic-catalogue';
import { OpenApiConformance } from '../support/openapi-conformance';
import { openApiErrors } from '../support/openapi-lint';

/**
 * The document's webhooks section (OpenAPI 3.1) against the code that sends: every event the
 * service can send is documented, each body and header set the code makes validates, the section
 * is valid OpenAPI, and its example signatures verify.
 */

interface Parameter {
  name: string;
  in: string;
  required: boolean;
  example: string;
}
interface WebhookOperation {
  operationId: string;
  parameters: Parameter[];
  requestBody: { content: { 'application/json': { examples: Record<string, { value: unknown }> } } };
  responses: Record<string, unknown>;
  security: unknown[];
}
type Document = { webhooks: Record<string, { post: WebhookOperation }> } & Record<string, unknown>;

const document = buildOpenApiDocument() as Document;
const conformance = new OpenApiConformance(document as never);
const spec = { ...DEFAULT_CATALOGUE, funders: 3, grants: 3, awardedGrants: 0, contracts: 3, awardedContracts: 0, today: '2026-11-22' };
const funders = generateFunders(spec);
const records: Record<ResourceKind, Record<string, unknown>> = {
  grant: [...generateGrants(spec, funders)].flat()[0]!,
  contract: [...generateContracts(spec, funders)].flat()[0]!,
  funder: funders[0]!,
};
const subscription = { secret: EXAMPLE_WEBHOOK_SECRET, previous_secret: null, previous_secret_valid_until: null };
const now = new Date('2026-11-22T06:00:00Z');
/** One delivery as the code makes it: the headers deliveryHeaders sets and the body, as a receiver parses it. */
const delivery = (event: string, data: unknown) => {
  const body = webhookBody(event, data);
  return { headers: deliveryHeaders(body, subscription, '0b8e5ad2-3c1e-5f6a-8d7b-9e0f1a2b3c4d', now), body: JSON.parse(body) as unknown };
};

describe('the webhooks section of the OpenAPI document', () => {
  it('documents exactly the events the service sends, the record events and webhook.test', () => {
    expect(Object.keys(document.webhooks)).toEqual([...WEBHOOK_EVENTS, WEBHOOK_TEST_EVENT]);
    expect(Object.keys(document.webhooks)).toEqual(expect.arrayContaining(['grant.created', 'contract.updated', 'grant.deadline_approaching', 'webhook.test']));
  });

  it('describes every change event the change feed makes, with its body and headers', () => {
    const kinds: ResourceKind[] = ['grant', 'contract', 'funder'];
    for (const kind of kinds) {
      const created = changeEventOf({ kind, id: String(records[kind].id), before: null, after: { record: records[kind] as never, contentHash: 'b' } }, now)!;
      const updated = changeEventOf(
        { kind, id: String(records[kind].id), before: { contentHash: 'a' }, after: { record: records[kind] as never, contentHash: 'b' } },
        now,
      )!;
      for (const event of [created, updated]) {
        const { headers, body } = delivery(event.event, event.data);
        expect(conformance.webhookProblems(headers, body), event.event).toEqual([]);
      }
    }
  });

  it('describes a deadline event of each kind that has deadlines', () => {
    const deadlineEvents = WEBHOOK_EVENTS.filter((event) => event.endsWith('.deadline_approaching'));
    expect(deadlineEvents).toEqual(['grant.deadline_approaching', 'contract.deadline_approaching']);
    for (const event of deadlineEvents) {
      const { headers, body } = delivery(event, records[kindOfEvent(event)]);
      expect(conformance.webhookProblems(headers, body), event).toEqual([]);
    }
  });

  it('describes the test event as sendTestEvent sends it', async () => {
    const attempts: WebhookAttempt[] = [];
    const stored: WebhookSubscription = {
      ...subscription,
      subscription_id: 'whk_0123456789abcdef0123456789abcdef',
      key_id: 'key',
      url: 'http://127.0.0.1:9/hook',
      events: ['grant.created'],
      days_before: 7,
      state: 'active',
      disabled_reason: null,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    };
    const ports = {
      webhooks: { get: async () => stored } as never,
      transport: {
        send: async (attempt: WebhookAttempt) => {
          attempts.push(attempt);
          return { status: 204, retryAfter: null, responseExcerpt: '', latencyMs: 1, error: null };
        },
      },
      resolver: { resolve: async () => ['127.0.0.1'] },
      clock: { now: () => now },
    };
    await sendTestEvent(ports, stored.subscription_id, 'local');
    expect(attempts).toHaveLength(1);
    const body = JSON.parse(attempts[0]!.body) as { event: string };
    expect(body.event).toBe(WEBHOOK_TEST_EVENT);
    expect(conformance.webhookProblems(attempts[0]!.headers, body)).toEqual([]);
  });

  it('refuses an undocumented event, a missing or extra header, and a body of the wrong shape', () => {
    const { headers, body } = delivery('grant.created', records.grant);
    expect(conformance.webhookProblems(headers, { ...(body as object), event: 'grant.deleted' }).join()).toMatch(/webhook grant.deleted is not documented/);
    const { 'webhook-signature': _dropped, ...unsigned } = headers;
    expect(conformance.webhookProblems(unsigned, body).join()).toMatch(/required header webhook-signature is missing/);
    expect(conformance.webhookProblems({ ...headers, 'X-Other': '1' }, body).join()).toMatch(/header x-other is not documented/);
    expect(conformance.webhookProblems(headers, { event: 'grant.created', data: records.contract }).join()).toMatch(/does not match the schema/);
    expect(conformance.webhookProblems(headers, { event: 'grant.created', data: { ...records.grant, secret: 1 } }).join()).toMatch(/does not match the schema/);
  });

  it('gives every event its example, which validates and whose example headers verify with the example secret', () => {
    for (const [event, { post }] of Object.entries(document.webhooks)) {
      const examples = Object.values(post.requestBody.content['application/json'].examples);
      expect(examples, event).toHaveLength(1);
      const value = examples[0]!.value;
      const headers = Object.fromEntries(post.parameters.map((p) => [p.name, p.example]));
      expect(conformance.webhookProblems(headers, value), event).toEqual([]);
      const raw = JSON.stringify(value);
      const sentAt = new Date(Number(headers['webhook-timestamp']) * 1000);
      expect(verifyWebhookSignature(raw, headers, EXAMPLE_WEBHOOK_SECRET, { now: sentAt }), event).toBe(true);
      expect(verifyServiceSignature(raw, headers['X-Service-Signature'], EXAMPLE_WEBHOOK_SECRET), event).toBe(true);
      expect(verifyWebhookSignature(raw.replace(event, 'grant.other'), headers, EXAMPLE_WEBHOOK_SECRET, { now: sentAt }), event).toBe(false);
    }
  });

  it('asks the receiver for no credential and says what its answers mean', () => {
    for (const [event, { post }] of Object.entries(document.webhooks)) {
      expect(post.security, event).toEqual([]);
      expect(Object.keys(post.responses), event).toEqual(['410', '2XX', 'default']);
    }
  });

  it('is valid OpenAPI 3.1 with examples that fit their schemas (Redocly), and a broken webhook is not', async () => {
    expect(await openApiErrors(document)).toEqual([]);
    const broken = structuredClone(document);
    const post = broken.webhooks['grant.created']!.post;
    post.parameters[0]!.in = 'body';
    (post.requestBody.content['application/json'].examples['grant.created']!.value as { data: { id: unknown } }).data.id = 5;
    const errors = await openApiErrors(broken);
    expect(errors).toEqual([
      expect.stringMatching(/^struct: `in` can be one of .* @ #\/webhooks\/grant.created\/post\/parameters\/0\/in$/),
      expect.stringMatching(/^no-invalid-media-type-examples: .*`id` property type must be string.* @ #\/webhooks\/grant.created\//),
    ]);
  });
});
