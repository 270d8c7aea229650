import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isWellFormedApiKey } from '../lambdas/core/auth/api-keys';
import { TIER_NAMES, type TierName } from '../lambdas/core/auth/tiers';
import { createKey } from '../lambdas/core/use-cases/manage-keys';
import type { Services } from '../lambdas/ports/services';

/**
 * One key per tier for local use, created on the first start of a state folder and kept in
 * `<state folder>/keys.json` ({"free": "...", "basic": "...", "pro": "...", "developer": "..."}),
 * readable by its owner only. In memory (tests) the keys are simply created.
 */

export type LocalKeys = Record<TierName, string>;
export const LOCAL_KEYS_FILE = 'keys.json';

function readKeysFile(path: string): LocalKeys | null {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    return TIER_NAMES.every((tier) => typeof parsed[tier] === 'string' && isWellFormedApiKey(parsed[tier] as string)) ? (parsed as LocalKeys) : null;
  } catch {
    return null;
  }
}

export async function ensureLocalKeys(
  services: Pick<Services, 'keys' | 'clock'>,
  dataDir?: string,
): Promise<{ keys: LocalKeys; created: boolean; file: string | null }> {
  const file = dataDir ? join(dataDir, LOCAL_KEYS_FILE) : null;
  const existing = file && existsSync(file) ? readKeysFile(file) : null;
  if (existing) return { keys: existing, created: false, file };
  const keys = {} as LocalKeys;
  for (const tier of TIER_NAMES) {
    keys[tier] = (await createKey(services.keys, { tier, owner: 'local', label: `local ${tier} key` }, randomBytes, services.clock.now())).key;
  }
  if (file) {
    writeFileSync(file, `${JSON.stringify(keys, null, 2)}\n`, { mode: 0o600 });
    // The mode above applies only to a new file; one left by an earlier start (unreadable keys) is narrowed too.
    chmodSync(file, 0o600);
  }
  return { keys, created: true, file };
}
