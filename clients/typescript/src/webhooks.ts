// Verifying the service's webhook deliveries, as Standard Webhooks (standardwebhooks.com) defines
// them, with Web Crypto only: the same code runs in Node, Deno, Bun, browsers and edge runtimes.

/** Headers as a Fetch API Headers object or as Node gives them (a repeated header as an array). */
export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface WebhookVerificationOptions {
  /** Seconds the delivery's timestamp may be off the receiver's clock, either way (default 300). */
  toleranceSeconds?: number;
  /** The receiver's clock (tests). */
  now?: Date;
}

export const DEFAULT_TOLERANCE_SECONDS = 300;
const SECRET_PREFIX = 'whsec_';
const encoder = new TextEncoder();

function headerOf(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const entry = Object.entries(headers as Record<string, string | readonly string[] | undefined>).find(([key]) => key.toLowerCase() === name);
  const value = entry?.[1];
  return typeof value === 'string' ? value : value?.join(' ');
}

/** Base64 or base64url, padded or not, to bytes; undefined when it is neither. */
function decodeBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(text)) return undefined;
  const standard = text.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
  try {
    const binary = atob(standard + '='.repeat((4 - (standard.length % 4)) % 4));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

/** A subscription secret's key: the bytes after `whsec_` (base64; secrets made before Standard Webhooks signing are base64url). */
function keyBytes(secret: string): Uint8Array<ArrayBuffer> | undefined {
  return decodeBase64(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret);
}

function signedContent(id: string, timestamp: string, rawBody: string | Uint8Array): Uint8Array<ArrayBuffer> {
  const prefix = encoder.encode(`${id}.${timestamp}.`);
  const body = typeof rawBody === 'string' ? encoder.encode(rawBody) : rawBody;
  const content = new Uint8Array(prefix.length + body.length);
  content.set(prefix);
  content.set(body, prefix.length);
  return content;
}

/**
 * Whether a delivery, as received, was signed by the service with `secret` (or any of `secret`
 * when several are given, as a receiver holds during a rotation) within the tolerance of now.
 *
 * It checks the Standard Webhooks headers: `webhook-signature` (one or more space-separated
 * `v1,<base64 HMAC-SHA256>`; any one valid signature verifies) over `webhook-id`,
 * `webhook-timestamp` and the raw body, and a timestamp within `toleranceSeconds` of the clock.
 * The id and time are signed with the body, so a captured delivery cannot be replayed later,
 * under another id or with another body. Pass the body exactly as received, before any JSON
 * parsing. Signatures are compared by Web Crypto's HMAC verify (constant time). Still dedupe on
 * `webhook-id`: delivery is at least once.
 */
export async function verifyWebhookSignature(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string | readonly string[],
  options: WebhookVerificationOptions = {},
): Promise<boolean> {
  const id = headerOf(headers, 'webhook-id');
  const timestamp = headerOf(headers, 'webhook-timestamp');
  const signatures = headerOf(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures || !/^\d{1,12}$/.test(timestamp)) return false;
  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(nowSeconds - Number(timestamp)) > (options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) return false;

  const candidates = signatures
    .split(' ')
    .filter((part) => part.startsWith('v1,'))
    .map((part) => decodeBase64(part.slice(3)))
    .filter((bytes): bytes is Uint8Array<ArrayBuffer> => bytes !== undefined && bytes.length === 32);
  if (candidates.length === 0) return false;

  const content = signedContent(id, timestamp, rawBody);
  for (const each of typeof secret === 'string' ? [secret] : secret) {
    const raw = each ? keyBytes(each) : undefined;
    if (!raw || raw.length === 0) continue;
    const key = await crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
    for (const signature of candidates) {
      if (await crypto.subtle.verify('HMAC', key, signature, content)) return true;
    }
  }
  return false;
}
