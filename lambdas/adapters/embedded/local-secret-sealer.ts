import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SealContext, SecretSealer } from '../../ports/secret-sealer';

/** The key's file in a local state folder. */
export const WEBHOOK_SECRET_KEY_FILE = 'webhook-secret-key';
/** Marks a value sealed by this adapter: `local:v1:<base64 iv|tag|ciphertext>`. */
export const LOCAL_SEALED_PREFIX = 'local:v1:';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

let processKey: Buffer | undefined;

/**
 * The key made once and kept in the state folder (owner-only), so sealed secrets outlive a
 * restart; without one, a key in memory shared by every sealer of this process.
 */
function localKey(dataDir?: string): Buffer {
  if (!dataDir) return (processKey ??= randomBytes(KEY_BYTES));
  const file = join(dataDir, WEBHOOK_SECRET_KEY_FILE);
  try {
    // 'wx': never replaces a key another start already made.
    writeFileSync(file, randomBytes(KEY_BYTES), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  chmodSync(file, 0o600);
  const key = readFileSync(file);
  if (key.length !== KEY_BYTES) throw new Error(`${file} must hold ${KEY_BYTES} bytes; remove it only if no webhook subscription was sealed with it`);
  return key;
}

/**
 * The local stand-in for the KMS sealer (`npm start`, tests): AES-256-GCM with the subscription
 * id as additional data, so a sealed value moved to another subscription fails to open, as under
 * KMS's encryption context.
 */
export class LocalSecretSealer implements SecretSealer {
  private readonly key: Buffer;

  constructor(dataDir?: string) {
    this.key = localKey(dataDir);
  }

  async seal(secret: string, context: SealContext): Promise<string> {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context.subscriptionId, 'utf8'));
    const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return `${LOCAL_SEALED_PREFIX}${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64')}`;
  }

  async unseal(stored: string, context: SealContext): Promise<string> {
    if (!this.isSealed(stored)) return stored;
    const bytes = Buffer.from(stored.slice(LOCAL_SEALED_PREFIX.length), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(context.subscriptionId, 'utf8'));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  }

  isSealed(stored: string): boolean {
    return stored.startsWith(LOCAL_SEALED_PREFIX);
  }
}
