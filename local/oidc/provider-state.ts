import { randomBytes, randomInt } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, type JWK } from 'jose';

/**
 * The local provider's secrets: its RS256 signing key (so ID tokens survive restarts), its cookie
 * keys, and the development account's password. Created on the first start of a state folder and
 * kept in `<state folder>/oidc-provider.json`, readable by its owner only; in memory without one.
 */

export const OIDC_STATE_FILE = 'oidc-provider.json';
export const DEVELOPMENT_ACCOUNT_EMAIL = 'developer@localhost.test';

export interface ProviderState {
  /** A private JWK with its `kid`, `alg: RS256` and `use: sig`. */
  signingKey: JWK;
  cookieKeys: string[];
  developmentAccount: { email: string; password: string };
}

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function randomPassword(length = 20): string {
  return Array.from({ length }, () => BASE62[randomInt(BASE62.length)]).join('');
}

async function newState(): Promise<ProviderState> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = await exportJWK(privateKey);
  return {
    signingKey: { ...jwk, kid: randomBytes(12).toString('base64url'), alg: 'RS256', use: 'sig' },
    cookieKeys: [randomBytes(32).toString('base64url')],
    developmentAccount: { email: DEVELOPMENT_ACCOUNT_EMAIL, password: randomPassword() },
  };
}

function readState(file: string): ProviderState | null {
  try {
    const state = JSON.parse(readFileSync(file, 'utf8')) as ProviderState;
    const wellFormed =
      state.signingKey?.kty === 'RSA' &&
      typeof state.signingKey.d === 'string' &&
      Array.isArray(state.cookieKeys) &&
      state.cookieKeys.length > 0 &&
      typeof state.developmentAccount?.email === 'string' &&
      typeof state.developmentAccount.password === 'string';
    return wellFormed ? state : null;
  } catch {
    return null;
  }
}

/** The state of this folder, made on its first start (or when the file is unreadable); `created` says which. */
export async function ensureProviderState(dataDir?: string): Promise<{ state: ProviderState; created: boolean; file: string | null }> {
  const file = dataDir ? join(dataDir, OIDC_STATE_FILE) : null;
  const existing = file && existsSync(file) ? readState(file) : null;
  if (existing) return { state: existing, created: false, file };
  const state = await newState();
  if (file) {
    writeFileSync(file, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
    // The mode above applies only to a new file; an unreadable one left behind is narrowed too.
    chmodSync(file, 0o600);
  }
  return { state, created: true, file };
}
