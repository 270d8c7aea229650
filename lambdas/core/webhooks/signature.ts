import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Webhook signatures (interface section 6): `X-Service-Signature: sha256=<lowercase hex
 * HMAC-SHA256 of the exact body bytes, keyed with the subscription's secret>`. The key is the
 * secret string as shown to the customer (`whsec_…`), UTF-8 encoded, so a receiver needs nothing
 * but `createHmac('sha256', secret)`.
 */

export const SIGNATURE_HEADER = 'X-Service-Signature';
export const SIGNATURE_PREFIX = 'sha256=';
export const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;

/** A new subscription secret: `whsec_` and 32 random bytes, base64url. Shown once. */
export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64url')}`;
}

export function isWebhookSecret(value: string): boolean {
  return /^whsec_[A-Za-z0-9_-]{43}$/.test(value);
}

/** The header value for a body: `sha256=` and the hex HMAC of its bytes. */
export function signWebhookPayload(body: string | Uint8Array, secret: string): string {
  return `${SIGNATURE_PREFIX}${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * Whether `header` carries a valid signature of `rawBody` for `secret`. Pass the body exactly as
 * received (before any JSON parsing). The header may list several `sha256=` values separated by
 * commas or spaces (during a secret rotation); any one valid value verifies. Comparison is in
 * constant time, so a forger learns nothing from how long a rejection takes.
 */
export function verifyWebhookSignature(rawBody: string | Uint8Array, header: string | null | undefined, secret: string): boolean {
  if (!header || !secret) return false;
  const expected = Buffer.from(signWebhookPayload(rawBody, secret), 'utf8');
  let valid = false;
  for (const candidate of header.split(/[\s,]+/)) {
    const given = Buffer.from(candidate, 'utf8');
    // timingSafeEqual needs equal lengths; a wrong length is not secret (every valid value has the same one).
    if (given.length === expected.length && timingSafeEqual(given, expected)) valid = true;
  }
  return valid;
}
