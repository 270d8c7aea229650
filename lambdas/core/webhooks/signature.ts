import { createHmac, randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { constantTimeEqual } from '../auth/constant-time';

/**
 * Webhook signatures. Every delivery carries two schemes, signed with the same secret:
 *
 * - Standard Webhooks (standardwebhooks.com): `webhook-id` (the event id), `webhook-timestamp`
 *   (unix seconds) and `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed
 *   with the secret's bytes (base64 after `whsec_`). The id and time are signed with the body, so
 *   a captured delivery cannot be replayed later or under another id: what receivers should check.
 * - The interface's own (section 6): `X-Service-Signature: sha256=<lowercase hex HMAC-SHA256 of the
 *   exact body bytes, keyed with the secret string as shown (`whsec_…`), UTF-8>`. Body only.
 */

export const SIGNATURE_HEADER = 'X-Service-Signature';
export const SIGNATURE_PREFIX = 'sha256=';
export const SECRET_PREFIX = 'whsec_';
/** Standard Webhooks' headers, lower-case as the spec writes them. */
export const STANDARD_HEADERS = { id: 'webhook-id', timestamp: 'webhook-timestamp', signature: 'webhook-signature' } as const;
/** How far a delivery's timestamp may be from the receiver's clock (the spec's and the package's default). */
export const DEFAULT_TOLERANCE_SECONDS = 300;
// 33 bytes: 44 base64 characters with no padding.
const SECRET_BYTES = 33;

/**
 * A new subscription secret: `whsec_` and 33 random bytes in base64 with neither `+` nor `/`, so
 * the same string is valid base64 and base64url and every Standard Webhooks library reads it as
 * it is. Shown once.
 */
export function newWebhookSecret(): string {
  for (;;) {
    const encoded = randomBytes(SECRET_BYTES).toString('base64');
    if (!/[+/]/.test(encoded)) return `${SECRET_PREFIX}${encoded}`;
  }
}

/** A secret of this service: today's (44 characters) or one made before Standard Webhooks signing (43, base64url). */
export function isWebhookSecret(value: string): boolean {
  return /^whsec_[A-Za-z0-9_-]{43,44}$/.test(value);
}

/** The secret's key bytes: base64 (or base64url) after `whsec_`, as Standard Webhooks defines the key. */
function keyOf(secret: string): Uint8Array {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

/**
 * The secret as Standard Webhooks libraries take it (`whsec_` + standard base64 of the key). The
 * same string for every secret made now; for older ones (base64url) the same key, re-encoded.
 */
export function standardWebhooksSecret(secret: string): string {
  return `${SECRET_PREFIX}${Buffer.from(keyOf(secret)).toString('base64')}`;
}

/** The interface's header value for a body: `sha256=` and the hex HMAC of its bytes. */
export function signWebhookPayload(body: string | Uint8Array, secret: string): string {
  return `${SIGNATURE_PREFIX}${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** One `v1,<base64>` Standard Webhooks signature of `id.timestamp.body`. */
export function signStandardWebhook(id: string, timestampSeconds: number, body: string, secret: string): string {
  return new Webhook(keyOf(secret), { format: 'raw' }).sign(id, new Date(timestampSeconds * 1000), body);
}

/** The Standard Webhooks headers of one attempt, signed by every secret given (several during a rotation, space-separated). */
export function standardWebhookHeaders(id: string, sentAt: Date, body: string, secrets: readonly string[]): Record<string, string> {
  const timestamp = Math.floor(sentAt.getTime() / 1000);
  return {
    [STANDARD_HEADERS.id]: id,
    [STANDARD_HEADERS.timestamp]: String(timestamp),
    [STANDARD_HEADERS.signature]: secrets.map((secret) => signStandardWebhook(id, timestamp, body, secret)).join(' '),
  };
}

/** A header of a request as Node gives them (lower-case names; a repeated header as an array). */
function headerOf(headers: Readonly<Record<string, string | string[] | undefined>>, name: string): string | undefined {
  const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name);
  const value = entry?.[1];
  return Array.isArray(value) ? value.join(' ') : value;
}

export interface WebhookVerificationOptions {
  /** Seconds the timestamp may be off the receiver's clock, either way (default 300). */
  toleranceSeconds?: number;
  /** The receiver's clock (tests). */
  now?: Date;
}

/**
 * Whether a delivery, as received, is one this service signed with `secret` within the last
 * few minutes: its Standard Webhooks signature over `webhook-id`, `webhook-timestamp` and the raw
 * body, and a timestamp within `toleranceSeconds` of now. Any one of several `v1,` signatures
 * (a rotation) verifies; comparison is in constant time. Pass the body exactly as received, before
 * any JSON parsing. A stale timestamp, another id or another body fails: a captured delivery
 * cannot be replayed. Receivers still dedupe on the id (delivery is at least once).
 */
export function verifyWebhookSignature(
  rawBody: string | Uint8Array,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  secret: string,
  options: WebhookVerificationOptions = {},
): boolean {
  const id = headerOf(headers, STANDARD_HEADERS.id);
  const timestampText = headerOf(headers, STANDARD_HEADERS.timestamp);
  const signatures = headerOf(headers, STANDARD_HEADERS.signature);
  if (!id || !timestampText || !signatures || !secret || !/^\d{1,12}$/.test(timestampText)) return false;
  const timestamp = Number(timestampText);
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - timestamp) > (options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) return false;
  const expected = signStandardWebhook(id, timestamp, Buffer.from(rawBody).toString('utf8'), secret);
  return signatures.split(' ').some((candidate) => constantTimeEqual(candidate, expected));
}

/**
 * Whether `header` carries a valid interface signature (`X-Service-Signature`, body only) of
 * `rawBody` for `secret`. It proves who sent the body, not when: prefer verifyWebhookSignature.
 * The header may list several `sha256=` values separated by commas or spaces (X-Service-Signatures
 * during a secret rotation); any one valid value verifies.
 */
export function verifyServiceSignature(rawBody: string | Uint8Array, header: string | null | undefined, secret: string): boolean {
  if (!header || !secret) return false;
  const expected = signWebhookPayload(rawBody, secret);
  let valid = false;
  for (const candidate of header.split(/[\s,]+/)) if (constantTimeEqual(candidate, expected)) valid = true;
  return valid;
}
