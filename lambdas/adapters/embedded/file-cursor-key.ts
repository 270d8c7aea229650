import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CURSOR_KEY_BYTES, type CursorKeySource, onceKeySource } from '../../ports/cursor-key';

/** The key's file in a local state folder. */
export const CURSOR_KEY_FILE = 'cursor-key';

/**
 * The list cursors' key on this machine: 32 random bytes made once and kept in the state folder
 * (readable by its owner only), so cursors outlive a restart as they outlive a cold start in AWS;
 * without a state folder, a key in memory for the process's life.
 */
export function localCursorKeys(dataDir?: string): CursorKeySource {
  if (!dataDir) {
    const key = randomBytes(CURSOR_KEY_BYTES);
    return { key: async () => key };
  }
  const file = join(dataDir, CURSOR_KEY_FILE);
  return onceKeySource(async () => {
    try {
      // 'wx': never replaces a key another start already made.
      writeFileSync(file, randomBytes(CURSOR_KEY_BYTES), { flag: 'wx', mode: 0o600 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    // A key copied in with wider permissions is narrowed: it signs every cursor this state serves.
    chmodSync(file, 0o600);
    return readFileSync(file);
  });
}
