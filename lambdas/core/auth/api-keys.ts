import { createHash } from 'node:crypto';
import { ServiceError } from '../errors';

/**
 * API keys: `gcf_live_` and 32 base62 characters (about 190 random bits). Only a key's SHA-256 is
 * stored; requests are matched by looking the hash up, so no comparison of secrets takes place.
 */

export const API_KEY_PREFIX = 'gcf_live_';
const KEY_BODY_LENGTH = 32;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_PATTERN = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${KEY_BODY_LENGTH}}$`);
/** How much of a key lists may show: the prefix and four characters, never enough to use it. */
const SHOWN_PREFIX_LENGTH = API_KEY_PREFIX.length + 4;

export type RandomBytes = (size: number) => Uint8Array;

/** Base62 characters from random bytes, without modulo bias (bytes >= 248 are drawn again). */
export function randomBase62(length: number, randomBytes: RandomBytes): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

export function generateApiKey(randomBytes: RandomBytes): string {
  return `${API_KEY_PREFIX}${randomBase62(KEY_BODY_LENGTH, randomBytes)}`;
}

export function generateKeyId(randomBytes: RandomBytes): string {
  return `key_${randomBase62(16, randomBytes)}`;
}

export function isWellFormedApiKey(value: string): boolean {
  return KEY_PATTERN.test(value);
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function shownPrefixOf(key: string): string {
  return key.slice(0, SHOWN_PREFIX_LENGTH);
}

export function unauthorized(message: string): ServiceError {
  return new ServiceError(401, 'UNAUTHORIZED', message);
}

/**
 * The key of an `Authorization: Bearer <key>` header. Exactly one header, the Bearer scheme (any
 * case), one space, and a well-formed key; anything else is 401 with a reason that never echoes
 * the value sent.
 */
export function bearerKeyOf(values: readonly string[] | undefined): string {
  if (!values || values.length === 0) throw unauthorized('Missing Authorization header: send Authorization: Bearer <API key>');
  if (values.length > 1) throw unauthorized('Send exactly one Authorization header');
  const match = /^(\S+) (\S+)$/.exec(values[0]!.trim());
  if (!match || match[1]!.toLowerCase() !== 'bearer') throw unauthorized('Authorization must use the Bearer scheme: Authorization: Bearer <API key>');
  const key = match[2]!;
  if (!isWellFormedApiKey(key)) throw unauthorized('Malformed API key');
  return key;
}
