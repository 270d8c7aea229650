import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { isMainThread } from 'node:worker_threads';

/**
 * A state folder holds API key hashes, webhook secrets and the cursor key: it and everything in it
 * are its owner's alone (folders 700, files 600). Files made later (LevelDB's and SQLite's own, as
 * they compact or journal) are kept private by the process's umask.
 */

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** No permission for group or others on anything this process creates from now on. */
export function restrictNewFiles(): void {
  // Worker threads may not change the umask; the process that owns a state folder is a main thread.
  if (isMainThread) process.umask(process.umask() | 0o077);
}

/** Sets owner-only modes on the folder and all in it (as chmod -R would); symbolic links are left alone. */
export function narrowModes(path: string): void {
  // Gone since its folder was read (a running server's LevelDB compacting): nothing to narrow.
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (!stat || stat.isSymbolicLink()) return;
  if (!stat.isDirectory()) {
    if ((stat.mode & 0o777) !== PRIVATE_FILE_MODE) chmodSync(path, PRIVATE_FILE_MODE);
    return;
  }
  if ((stat.mode & 0o777) !== PRIVATE_DIR_MODE) chmodSync(path, PRIVATE_DIR_MODE);
  for (const name of readdirSync(path)) narrowModes(join(path, name));
}

/** Creates the state folder (mode 700) or narrows an existing one's modes, before anything in it is opened. */
export function makeStatePrivate(dataDir: string): void {
  restrictNewFiles();
  mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  narrowModes(dataDir);
}
