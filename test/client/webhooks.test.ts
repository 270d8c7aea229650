import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../clients/typescript/src/index';
import { newWebhookSecret, standardWebhookHeaders } from '../../lambdas/core/webhooks/signature';

/**
 * The client's verifyWebhookSignature against deliveries signed by the service's own signer
 * (the headers the sender puts on every attempt), and the same deliveries tampered with.
 */

const SENT_AT = new Date('2026-11-26T12:00:00Z');
const body = JSON.stringify({ event: 'grant.updated', data: { id: randomUUID(), title: 'Rural clinics – capital fund', amount_max: 250000 } });

function delivery(secrets: string[], rawBody = body) {
  return { rawBody, headers: standardWebhookHeaders(`evt_${randomUUID()}`, SENT_AT, rawBody, secrets) };
}

describe('verifyWebhookSignature', () => {
  it('accepts a delivery the service signed, as a string or bytes, with Node or Fetch headers', async () => {
    const secret = newWebhookSecret();
    const { rawBody, headers } = delivery([secret]);
    const now = new Date(SENT_AT.getTime() + 30_000);
    expect(await verifyWebhookSignature(rawBody, headers, secret, { now })).toBe(true);
    expect(await verifyWebhookSignature(new TextEncoder().encode(rawBody), headers, secret, { now })).toBe(true);
    expect(await verifyWebhookSignature(rawBody, new Headers(headers), secret, { now })).toBe(true);
    const nodeStyle = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toUpperCase(), value]));
    expect(await verifyWebhookSignature(rawBody, nodeStyle, secret, { now })).toBe(true);
  });

  it('refuses a tampered body, id or timestamp, another secret, and missing headers', async () => {
    const secret = newWebhookSecret();
    const { rawBody, headers } = delivery([secret]);
    const now = SENT_AT;
    expect(await verifyWebhookSignature(rawBody.replace('250000', '950000'), headers, secret, { now })).toBe(false);
    expect(await verifyWebhookSignature(`${rawBody} `, headers, secret, { now })).toBe(false);
    expect(await verifyWebhookSignature(rawBody, { ...headers, 'webhook-id': `evt_${randomUUID()}` }, secret, { now })).toBe(false);
    const shifted = String(Number(headers['webhook-timestamp']) + 1);
    expect(await verifyWebhookSignature(rawBody, { ...headers, 'webhook-timestamp': shifted }, secret, { now })).toBe(false);
    expect(await verifyWebhookSignature(rawBody, headers, newWebhookSecret(), { now })).toBe(false);
    const flipped = headers['webhook-signature']!.replace(/,(.)/, (_, c: string) => `,${c === 'A' ? 'B' : 'A'}`);
    expect(await verifyWebhookSignature(rawBody, { ...headers, 'webhook-signature': flipped }, secret, { now })).toBe(false);
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      const { [name]: _dropped, ...rest } = headers;
      expect(await verifyWebhookSignature(rawBody, rest, secret, { now }), name).toBe(false);
    }
  });

  it('refuses a delivery outside the tolerance either way (a replay), and honours a custom tolerance', async () => {
    const secret = newWebhookSecret();
    const { rawBody, headers } = delivery([secret]);
    const at = (seconds: number) => new Date(SENT_AT.getTime() + seconds * 1000);
    expect(await verifyWebhookSignature(rawBody, headers, secret, { now: at(300) })).toBe(true);
    expect(await verifyWebhookSignature(rawBody, headers, secret, { now: at(301) })).toBe(false);
    expect(await verifyWebhookSignature(rawBody, headers, secret, { now: at(-301) })).toBe(false);
    expect(await verifyWebhookSignature(rawBody, headers, secret, { now: at(3600), toleranceSeconds: 3600 })).toBe(true);
  });

  it('during a rotation, a delivery signed by both secrets verifies with either, and a receiver may hold both', async () => {
    const [previous, next] = [newWebhookSecret(), newWebhookSecret()];
    const { rawBody, headers } = delivery([previous, next]);
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(await verifyWebhookSignature(rawBody, headers, previous, { now: SENT_AT })).toBe(true);
    expect(await verifyWebhookSignature(rawBody, headers, next, { now: SENT_AT })).toBe(true);
    const onlyNew = delivery([next]);
    expect(await verifyWebhookSignature(onlyNew.rawBody, onlyNew.headers, [previous, next], { now: SENT_AT })).toBe(true);
    expect(await verifyWebhookSignature(onlyNew.rawBody, onlyNew.headers, [previous], { now: SENT_AT })).toBe(false);
  });

  it('takes secrets made before Standard Webhooks signing (32 bytes, base64url)', async () => {
    let legacy: string;
    do legacy = `whsec_${randomBytes(32).toString('base64url')}`;
    while (!/[-_]/.test(legacy.slice(6)));
    const { rawBody, headers } = delivery([legacy]);
    expect(await verifyWebhookSignature(rawBody, headers, legacy, { now: SENT_AT })).toBe(true);
  });
});
