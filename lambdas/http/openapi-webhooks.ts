import type { ResourceKind } from '../core/records';
import { DELIVERY_TIMEOUT_MS, deliveryHeaders, JITTER, MAX_RETRY_AFTER_SECONDS, RETRY_SCHEDULE_SECONDS, webhookBody } from '../core/webhooks/delivery-policy';
import { DEADLINE_WINDOW_DAYS, kindOfEvent, WEBHOOK_EVENTS, WEBHOOK_TEST_EVENT, type WebhookEvent } from '../core/webhooks/events';
import { DEFAULT_TOLERANCE_SECONDS, SECRET_PREFIX } from '../core/webhooks/signature';
import { RECORD_EXAMPLES } from './openapi-examples';
import { exactRecord } from './openapi-schemas';

/**
 * The document's top-level `webhooks` (OpenAPI 3.1): each event the service POSTs to a
 * subscriber, with its body, the headers of both signature schemes and what the receiver's answer
 * means. The header examples are what deliveryHeaders makes of the example body, so they verify.
 */

/** Signs the examples: a reader can check a verifier against them. Not a secret of any subscription. */
export const EXAMPLE_WEBHOOK_SECRET = `${SECRET_PREFIX}${Buffer.from('documentation example, not a key!').toString('base64')}`;
const EXAMPLE_EVENT_ID = '5f0c6f3e-2b7d-5c1a-9e4f-8a1d2c3b4e5f';
const EXAMPLE_SENT_AT = new Date('2026-11-26T06:00:03Z');
const EXAMPLE_SUBSCRIPTION_ID = 'whk_3b1f0e2a9c8d4e7f8a6b5c4d3e2f1a0b';

const SCHEMA_OF: Record<ResourceKind, string> = { grant: 'Grant', contract: 'Contract', funder: 'Funder' };

/** Every header a delivery carries but Content-Type, in the order deliveryHeaders sets them. */
export const WEBHOOK_HEADER_DESCRIPTIONS: Record<string, string> = {
  'User-Agent': 'Names the sender and its version.',
  'webhook-id': 'Standard Webhooks: the event id, the same on every attempt and replay of this event. Delivery is at least once: dedupe on it.',
  'webhook-timestamp': `Standard Webhooks: when this attempt was sent, in unix seconds. Refuse a delivery more than ${DEFAULT_TOLERANCE_SECONDS} seconds from your clock.`,
  'webhook-signature': `Standard Webhooks: \`v1,\` + base64 HMAC-SHA256 of \`<webhook-id>.<webhook-timestamp>.<raw body>\`, keyed with the secret's bytes (the base64 after \`${SECRET_PREFIX}\`). During a secret rotation one \`v1,…\` per secret, space-separated; any one verifies. Verify this one: it binds the id and the time to the body, so a captured delivery cannot be replayed. Any Standard Webhooks library verifies it with the secret as shown.`,
  'X-Service-Signature': `The interface's scheme: \`sha256=\` + lowercase hex HMAC-SHA256 of the exact body bytes, keyed with the whole secret string (\`${SECRET_PREFIX}…\`, UTF-8). It covers the body only, not when it was sent. During a rotation it is signed with the old secret.`,
  'X-Service-Signatures':
    'The `sha256=…` signature by every secret that signs now, comma-separated: both during a rotation (the old one first), so receivers that switched to the new secret verify against it.',
  'X-Service-Event-Id': 'The event id, as webhook-id.',
  'X-Service-Timestamp': 'When this attempt was sent, ISO 8601 (UTC).',
};

const HEADER_SCHEMAS: Record<string, Record<string, unknown>> = {
  'webhook-timestamp': { type: 'string', pattern: '^[0-9]+$' },
  'webhook-id': { type: 'string', format: 'uuid' },
  'X-Service-Event-Id': { type: 'string', format: 'uuid' },
  'X-Service-Timestamp': { type: 'string', format: 'date-time' },
};

const duration = (seconds: number) => (seconds < 3_600 ? `${seconds / 60} min` : `${seconds / 3_600} h`);

/** What the receiver's answer means, for every event (delivery-policy.ts verdictOf). */
function deliveryResponses(retried: boolean) {
  const retry = retried
    ? `retried after ${RETRY_SCHEDULE_SECONDS.map(duration).join(', ')} (each ±${JITTER * 100}%, or a longer Retry-After up to ${duration(MAX_RETRY_AFTER_SECONDS)}), ${RETRY_SCHEDULE_SECONDS.length + 1} attempts in all, then dead-lettered (an operator can replay it)`
    : 'not retried: this event is sent once';
  return {
    '2XX': { description: `Delivered, when it comes within ${DELIVERY_TIMEOUT_MS / 1_000} s. Answer quickly and process later.` },
    410: { description: 'Gone: the subscription is disabled and nothing more is sent to it.' },
    default: { description: `Any other status (a 3xx too: redirects are not followed), or no answer within ${DELIVERY_TIMEOUT_MS / 1_000} s: ${retry}.` },
  };
}

function eventBodySchema(event: string, data: Record<string, unknown>) {
  return { type: 'object', required: ['event', 'data'], additionalProperties: false, properties: { event: { type: 'string', const: event }, data } };
}

const TEST_EVENT_DATA_SCHEMA = {
  type: 'object',
  required: ['subscription_id', 'sent_at', 'message'],
  additionalProperties: false,
  properties: {
    subscription_id: { type: 'string', pattern: '^whk_[0-9a-f]{32}$', description: 'The subscription tested' },
    sent_at: { type: 'string', format: 'date-time' },
    message: { type: 'string' },
  },
};

const TEST_EVENT_DATA = {
  subscription_id: EXAMPLE_SUBSCRIPTION_ID,
  sent_at: EXAMPLE_SENT_AT.toISOString(),
  message: 'A test event sent by an operator; it carries no record.',
};

/** When each event of a record kind is sent, by what the event name ends with. */
function eventDescription(event: WebhookEvent): { summary: string; description: string } {
  const kind = kindOfEvent(event);
  const path = `/${kind}s-api/{id}`;
  if (event.endsWith('.created')) {
    return { summary: `A ${kind} was added`, description: `A ${kind} was added to the catalogue. data is the ${kind} as GET ${path} returns it.` };
  }
  if (event.endsWith('.updated')) {
    return {
      summary: `A ${kind} changed`,
      description: `A public field of a ${kind} changed; a write that changes nothing sends nothing. data is the ${kind} after the change, as GET ${path} returns it.`,
    };
  }
  return {
    summary: `An open ${kind}'s deadline is near`,
    description: `An open ${kind} (${kind === 'grant' ? 'posted' : 'active'}, deadline today or later) has its deadline within the subscription's days_before (${DEADLINE_WINDOW_DAYS.min} to ${DEADLINE_WINDOW_DAYS.max}, default ${DEADLINE_WINDOW_DAYS.default}), counting today. Sent once per subscription, record and deadline (a moved deadline is a new one), by a scan that runs daily. data is the ${kind} as GET ${path} returns it.`,
  };
}

/** The header parameters of one delivery, with the values deliveryHeaders gives the example body. */
function headerParameters(body: string) {
  const signed = deliveryHeaders(
    body,
    { secret: EXAMPLE_WEBHOOK_SECRET, previous_secret: null, previous_secret_valid_until: null },
    EXAMPLE_EVENT_ID,
    EXAMPLE_SENT_AT,
  );
  return Object.entries(WEBHOOK_HEADER_DESCRIPTIONS).map(([name, description]) => ({
    name,
    in: 'header',
    required: true,
    description,
    schema: HEADER_SCHEMAS[name] ?? { type: 'string' },
    example: signed[name],
  }));
}

const SIGNED_EXAMPLES = `The header examples are the example body, serialised compactly (JSON.stringify), signed with the example secret \`${EXAMPLE_WEBHOOK_SECRET}\`: check your verifier against them.`;

function webhookOperation(event: string, summary: string, description: string, dataSchema: Record<string, unknown>, data: unknown, retried: boolean) {
  const body = webhookBody(event, data);
  return {
    post: {
      operationId: `on${event
        .split(/[._]/)
        .map((word) => word[0]!.toUpperCase() + word.slice(1))
        .join('')}`,
      summary,
      description: `${description}\n\n${SIGNED_EXAMPLES}`,
      tags: ['webhooks'],
      // The service signs its deliveries; it sends no credential of the receiver's.
      security: [],
      parameters: headerParameters(body),
      requestBody: {
        required: true,
        description: `{"event", "data"}, serialised once: the bytes signed are the bytes sent, on every attempt. Verify the raw body before parsing it.`,
        content: { 'application/json': { schema: eventBodySchema(event, dataSchema), examples: { [event]: { value: JSON.parse(body) } } } },
      },
      responses: deliveryResponses(retried),
    },
  };
}

/** The `webhooks` member of the document: every event in WEBHOOK_EVENTS, and webhook.test. */
export function webhooksSection(): Record<string, unknown> {
  const section: Record<string, unknown> = {};
  for (const event of WEBHOOK_EVENTS) {
    const kind = kindOfEvent(event);
    const { summary, description } = eventDescription(event);
    section[event] = webhookOperation(event, summary, description, exactRecord(SCHEMA_OF[kind]), RECORD_EXAMPLES[kind], true);
  }
  section[WEBHOOK_TEST_EVENT] = webhookOperation(
    WEBHOOK_TEST_EVENT,
    'A test event from an operator',
    `Sent only when an operator runs \`npm run admin -- webhooks test <subscription-id>\`, to check a receiver: signed like every delivery, sent at once and once only, and carrying no record. No subscription asks for it; the receiver's answer is reported to the operator.`,
    TEST_EVENT_DATA_SCHEMA,
    TEST_EVENT_DATA,
    false,
  );
  return section;
}
