import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import {
  deliveryHeaders,
  nextRetryDelay,
  RETRY_SCHEDULE_SECONDS,
  retryAfterSeconds,
  verdictOf,
  webhookBody,
} from '../../lambdas/core/webhooks/delivery-policy';
import { type DestinationMode, DestinationRefused, parseWebhookUrl, resolveDestination } from '../../lambdas/core/webhooks/destination-policy';
import { isWebhookEvent, kindOfEvent, WEBHOOK_EVENTS } from '../../lambdas/core/webhooks/events';
import {
  isWebhookSecret,
  newWebhookSecret,
  signStandardWebhook,
  signWebhookPayload,
  standardWebhookHeaders,
  standardWebhooksSecret,
  verifyServiceSignature,
  verifyWebhookSignature,
} from '../../lambdas/core/webhooks/signature';

describe('webhook signatures', () => {
  const secret = newWebhookSecret();
  const body = '{"event":"grant.created","data":{"id":"x","title":"Café — “quotes”"}}';

  it('makes whsec_ secrets of 33 random bytes whose base64 is also base64url, so any Standard Webhooks library reads them', () => {
    for (let i = 0; i < 50; i++) {
      const made = newWebhookSecret();
      expect(isWebhookSecret(made)).toBe(true);
      expect(made).toMatch(/^whsec_[A-Za-z0-9]{44}$/);
      expect(Buffer.from(made.slice('whsec_'.length), 'base64')).toHaveLength(33);
      expect(standardWebhooksSecret(made)).toBe(made);
    }
    expect(newWebhookSecret()).not.toBe(secret);
    // A secret made before (32 bytes, base64url) is still a secret; its Standard Webhooks form is the same key in base64.
    const older = `whsec_${Buffer.alloc(32, 0xfb).toString('base64url')}`;
    expect(isWebhookSecret(older)).toBe(true);
    expect(standardWebhooksSecret(older)).toBe(`whsec_${Buffer.alloc(32, 0xfb).toString('base64')}`);
  });

  it('signs the exact bytes with HMAC-SHA256 keyed by the secret, as a receiver recomputes it', () => {
    const header = signWebhookPayload(body, secret);
    expect(header).toBe(`sha256=${createHmac('sha256', secret).update(Buffer.from(body, 'utf8')).digest('hex')}`);
    expect(header).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(signWebhookPayload(Buffer.from(body, 'utf8'), secret)).toBe(header);
  });

  it('verifies a valid signature and rejects any change to the body, the secret or the header', () => {
    const header = signWebhookPayload(body, secret);
    expect(verifyServiceSignature(body, header, secret)).toBe(true);
    expect(verifyServiceSignature(Buffer.from(body), header, secret)).toBe(true);
    expect(verifyServiceSignature(`${body} `, header, secret)).toBe(false);
    expect(verifyServiceSignature(body, header, newWebhookSecret())).toBe(false);
    expect(verifyServiceSignature(body, header.toUpperCase(), secret)).toBe(false);
    expect(verifyServiceSignature(body, header.slice(0, -1), secret)).toBe(false);
    expect(verifyServiceSignature(body, `sha1=${header.slice(7)}`, secret)).toBe(false);
    expect(verifyServiceSignature(body, '', secret)).toBe(false);
    expect(verifyServiceSignature(body, null, secret)).toBe(false);
    expect(verifyServiceSignature(body, header, '')).toBe(false);
  });

  it('accepts any one of several signatures, as sent during a secret rotation', () => {
    const old = newWebhookSecret();
    const both = `${signWebhookPayload(body, old)}, ${signWebhookPayload(body, secret)}`;
    expect(verifyServiceSignature(body, both, secret)).toBe(true);
    expect(verifyServiceSignature(body, both, old)).toBe(true);
    expect(verifyServiceSignature(body, both, newWebhookSecret())).toBe(false);
  });
});

describe('Standard Webhooks signatures', () => {
  const secret = newWebhookSecret();
  const body = '{"event":"grant.created","data":{"id":"x","title":"Café — “quotes”"}}';
  const sentAt = new Date('2026-11-26T10:00:00Z');
  const at = (seconds: number) => new Date(sentAt.getTime() + seconds * 1000);
  const headers = standardWebhookHeaders('evt-1', sentAt, body, [secret]);

  it('signs "id.timestamp.body" as the spec defines it: HMAC-SHA256 keyed by the secret\'s bytes, base64, after v1,', () => {
    expect(headers['webhook-id']).toBe('evt-1');
    expect(headers['webhook-timestamp']).toBe(String(sentAt.getTime() / 1000));
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    expect(headers['webhook-signature']).toBe(
      `v1,${createHmac('sha256', key)
        .update(`evt-1.${sentAt.getTime() / 1000}.${body}`)
        .digest('base64')}`,
    );
    expect(signStandardWebhook('evt-1', sentAt.getTime() / 1000, body, standardWebhooksSecret(secret))).toBe(headers['webhook-signature']);
  });

  it('verifies within the tolerance and refuses a replay: an old or future timestamp, another id, another body, another secret', () => {
    expect(verifyWebhookSignature(body, headers, secret, { now: at(60) })).toBe(true);
    expect(verifyWebhookSignature(Buffer.from(body), headers, secret, { now: at(-60) })).toBe(true);
    expect(verifyWebhookSignature(body, headers, secret, { now: at(301) })).toBe(false);
    expect(verifyWebhookSignature(body, headers, secret, { now: at(-301) })).toBe(false);
    expect(verifyWebhookSignature(body, headers, secret, { now: at(3_600), toleranceSeconds: 3_601 })).toBe(true);
    expect(verifyWebhookSignature(body, { ...headers, 'webhook-id': 'evt-2' }, secret, { now: sentAt })).toBe(false);
    expect(verifyWebhookSignature(body, { ...headers, 'webhook-timestamp': String(sentAt.getTime() / 1000 + 1) }, secret, { now: sentAt })).toBe(false);
    expect(verifyWebhookSignature(`${body} `, headers, secret, { now: sentAt })).toBe(false);
    expect(verifyWebhookSignature(body, headers, newWebhookSecret(), { now: sentAt })).toBe(false);
    for (const missing of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      expect(verifyWebhookSignature(body, { ...headers, [missing]: undefined }, secret, { now: sentAt })).toBe(false);
    }
    expect(verifyWebhookSignature(body, { ...headers, 'webhook-timestamp': '2026-11-26T10:00:00Z' }, secret, { now: sentAt })).toBe(false);
    // Header names as any HTTP stack may spell them.
    expect(
      verifyWebhookSignature(
        body,
        { 'Webhook-Id': headers['webhook-id'], 'WEBHOOK-TIMESTAMP': headers['webhook-timestamp'], 'webhook-signature': headers['webhook-signature'] },
        secret,
        { now: sentAt },
      ),
    ).toBe(true);
  });

  it('signs with every secret during a rotation, space-separated, and either verifies (ours and the standardwebhooks package)', () => {
    const old = newWebhookSecret();
    const both = standardWebhookHeaders('evt-1', new Date(), body, [old, secret]);
    expect(both['webhook-signature']!.split(' ')).toHaveLength(2);
    for (const key of [old, secret]) {
      expect(verifyWebhookSignature(body, both, key)).toBe(true);
      expect(new Webhook(key).verify(body, both)).toEqual(JSON.parse(body));
    }
    expect(verifyWebhookSignature(body, both, newWebhookSecret())).toBe(false);
    // An older base64url secret: the package takes its standard form.
    const older = `whsec_${Buffer.alloc(32, 0xfb).toString('base64url')}`;
    expect(new Webhook(standardWebhooksSecret(older)).verify(body, standardWebhookHeaders('evt-3', new Date(), body, [older]))).toEqual(JSON.parse(body));
  });
});

describe('webhook events', () => {
  it('names the eight kinds of interface section 6', () => {
    expect(WEBHOOK_EVENTS).toHaveLength(8);
    expect(isWebhookEvent('contract.deadline_approaching')).toBe(true);
    expect(isWebhookEvent('funder.deadline_approaching')).toBe(false);
    expect(isWebhookEvent('grant.deleted')).toBe(false);
    expect(kindOfEvent('funder.updated')).toBe('funder');
  });
});

describe('webhook destinations', () => {
  const refused = (url: string, mode: DestinationMode) => {
    try {
      parseWebhookUrl(url, mode);
    } catch (error) {
      expect(error).toBeInstanceOf(DestinationRefused);
      return (error as DestinationRefused).reason;
    }
    throw new Error(`accepted: ${url}`);
  };

  it('allows https to public hosts in both modes, and http only to loopback in local mode', () => {
    expect(parseWebhookUrl('https://hooks.example.com/gcf?x=1', 'aws').hostname).toBe('hooks.example.com');
    expect(parseWebhookUrl('https://93.184.216.34/hook', 'aws').hostname).toBe('93.184.216.34');
    expect(parseWebhookUrl('http://127.0.0.1:8080/hook', 'local').port).toBe('8080');
    expect(parseWebhookUrl('http://localhost:8080/hook', 'local').hostname).toBe('localhost');
    expect(parseWebhookUrl('http://[::1]:8080/hook', 'local').hostname).toBe('[::1]');
    expect(refused('http://hooks.example.com/', 'aws')).toMatch(/plain http is not allowed/);
    expect(refused('http://hooks.example.com/', 'local')).toMatch(/only to a loopback address/);
    expect(refused('http://127.0.0.1/', 'aws')).toMatch(/loopback address/);
  });

  it.each([
    ['http://169.254.169.254/latest/meta-data/', 'cloud metadata'],
    ['https://169.254.169.254/', 'cloud metadata'],
    ['https://[fd00:ec2::254]/', 'cloud metadata'],
    ['https://10.0.0.1/', 'private'],
    ['https://172.16.5.4/', 'private'],
    ['https://192.168.1.1/', 'private'],
    ['https://127.0.0.1/', 'loopback'],
    ['https://[::1]/', 'loopback'],
    ['https://[::ffff:10.0.0.1]/', 'private'],
    ['https://[::7f00:1]/', 'IPv4-compatible'],
    ['https://[::a9fe:a9fe]/', 'IPv4-compatible'],
    ['https://[::808:808]/', 'IPv4-compatible'],
    ['https://[64:ff9b::a9fe:a9fe]/', 'rfc6052'],
    ['https://[2002:7f00:1::]/', '6to4'],
    ['https://169.254.10.10/', 'link-local'],
    ['https://[fe80::1]/', 'link-local'],
    ['https://[fc00::1]/', 'unique local'],
    ['https://100.64.0.1/', 'carrier-grade NAT'],
    ['https://0.0.0.0/', 'unspecified'],
    ['https://224.0.0.1/', 'multicast'],
    ['https://localhost/', 'loopback name'],
  ])('refuses %s in AWS mode (%s)', (url, reason) => {
    expect(refused(url, 'aws')).toContain(reason);
  });

  it('refuses malformed URLs, other schemes and credentials', () => {
    expect(refused('not a url', 'aws')).toMatch(/absolute URL/);
    expect(refused('ftp://example.com/', 'aws')).toMatch(/scheme ftp/);
    expect(refused('https://user:pw@example.com/', 'aws')).toMatch(/credentials/);
    expect(refused(`https://example.com/${'a'.repeat(2050)}`, 'aws')).toMatch(/longer than/);
  });

  it('checks every address a name resolves to, so a public name pointing inside is refused', async () => {
    const resolver = (table: Record<string, string[]>) => ({
      resolve: async (host: string) => {
        const found = table[host];
        if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
        return found;
      },
    });
    const dns = resolver({
      'hooks.example.com': ['93.184.216.34', '2606:2800:220:1::1'],
      'sneaky.example.com': ['93.184.216.34', '127.0.0.1'],
      'meta.example.com': ['169.254.169.254'],
    });
    expect(await resolveDestination('https://hooks.example.com/x', 'aws', dns)).toMatchObject({ addresses: ['93.184.216.34', '2606:2800:220:1::1'] });
    await expect(resolveDestination('https://sneaky.example.com/x', 'aws', dns)).rejects.toThrow(/127\.0\.0\.1 is a loopback address/);
    await expect(resolveDestination('https://meta.example.com/x', 'aws', dns)).rejects.toThrow(/cloud metadata/);
    await expect(resolveDestination('https://nowhere.example.com/x', 'aws', dns)).rejects.toThrow(/does not resolve \(ENOTFOUND\)/);
    expect(await resolveDestination('http://127.0.0.1:9/x', 'local', dns)).toMatchObject({ addresses: ['127.0.0.1'] });
  });
});

describe('webhook delivery policy', () => {
  const subscription = { secret: 'whsec_new', previous_secret: 'whsec_old', previous_secret_valid_until: '2026-11-22T12:00:00.000Z' };
  const body = webhookBody('grant.created', { id: 'g1', title: 'T', amount_max: 5, deadline_date: null });

  it('serialises {event, data} once; the signature is over those exact bytes', () => {
    expect(JSON.parse(body)).toEqual({ event: 'grant.created', data: { id: 'g1', title: 'T', amount_max: 5, deadline_date: null } });
    const headers = deliveryHeaders(
      body,
      { ...subscription, previous_secret: null, previous_secret_valid_until: null },
      'evt-1',
      new Date('2026-11-22T10:00:00Z'),
    );
    expect(headers).toMatchObject({ 'Content-Type': 'application/json', 'X-Service-Event-Id': 'evt-1', 'X-Service-Timestamp': '2026-11-22T10:00:00.000Z' });
    expect(verifyServiceSignature(body, headers['X-Service-Signature'], 'whsec_new')).toBe(true);
    expect(headers['X-Service-Signatures']).toBe(headers['X-Service-Signature']);
    // Standard Webhooks beside it: the event id, this attempt's time in unix seconds, one signature.
    expect(headers).toMatchObject({ 'webhook-id': 'evt-1', 'webhook-timestamp': String(Date.parse('2026-11-22T10:00:00Z') / 1000) });
    expect(verifyWebhookSignature(body, headers, 'whsec_new', { now: new Date('2026-11-22T10:00:00Z') })).toBe(true);
  });

  it('signs with both secrets during a rotation (the old one in X-Service-Signature), and with the new one after', () => {
    const during = deliveryHeaders(body, subscription, 'evt-1', new Date('2026-11-22T11:59:59Z'));
    expect(verifyServiceSignature(body, during['X-Service-Signature'], 'whsec_old')).toBe(true);
    expect(verifyServiceSignature(body, during['X-Service-Signature'], 'whsec_new')).toBe(false);
    expect(verifyServiceSignature(body, during['X-Service-Signatures'], 'whsec_old')).toBe(true);
    expect(verifyServiceSignature(body, during['X-Service-Signatures'], 'whsec_new')).toBe(true);
    const after = deliveryHeaders(body, subscription, 'evt-1', new Date('2026-11-22T12:00:00Z'));
    expect(verifyServiceSignature(body, after['X-Service-Signature'], 'whsec_new')).toBe(true);
    expect(verifyServiceSignature(body, after['X-Service-Signatures'], 'whsec_old')).toBe(false);
  });

  it('counts only a 2xx as delivered, a 410 as gone, and anything else (redirects, errors, no answer) as a retry', () => {
    expect([200, 204, 299].map(verdictOf)).toEqual(['delivered', 'delivered', 'delivered']);
    expect(verdictOf(410)).toBe('gone');
    expect([301, 302, 400, 404, 429, 500, 503, null].map(verdictOf)).toEqual(Array(8).fill('retry'));
  });

  it('backs off through the schedule with ±20% jitter, honours a longer Retry-After, and stops after the last', () => {
    expect(RETRY_SCHEDULE_SECONDS).toEqual([60, 300, 1800, 7200, 21600, 43200, 86400]);
    expect(RETRY_SCHEDULE_SECONDS.reduce((a, b) => a + b, 0) / 3600).toBeGreaterThan(44);
    expect(nextRetryDelay(1, null, () => 0)).toBe(48);
    expect(nextRetryDelay(1, null, () => 1)).toBe(72);
    expect(nextRetryDelay(2, null, () => 0.5)).toBe(300);
    expect(nextRetryDelay(2, 900, () => 0.5)).toBe(900);
    expect(nextRetryDelay(2, 10, () => 0.5)).toBe(300);
    expect(nextRetryDelay(7, null, () => 0.5)).toBe(86_400);
    expect(nextRetryDelay(8, null, () => 0.5)).toBeNull();
    expect(nextRetryDelay(2, null, () => 0.5, [1, 2])).toBe(2);
    expect(nextRetryDelay(3, null, () => 0.5, [1, 2])).toBeNull();
  });

  it('reads Retry-After as seconds or an HTTP date, capped at a day', () => {
    const now = new Date('2026-11-22T10:00:00Z');
    expect(retryAfterSeconds('120', now)).toBe(120);
    expect(retryAfterSeconds('Sun, 22 Nov 2026 10:05:00 GMT', now)).toBe(300);
    expect(retryAfterSeconds('Sun, 22 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(retryAfterSeconds('9999999', now)).toBe(86_400);
    expect(retryAfterSeconds('soon', now)).toBeNull();
    expect(retryAfterSeconds(undefined, now)).toBeNull();
  });
});
