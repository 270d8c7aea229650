import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * One process at a time may own a state folder: LevelDB allows a single opener, and dynalite
 * reports a second one only as a crash deep inside its callbacks. A pid file turns that into a
 * clear message before anything is opened; a stale file (its process gone) is taken over.
 */
export class DataDirInUseError extends Error {
  constructor(dataDir: string, pid: number) {
    super(
      `the state folder ${dataDir} is in use by process ${pid}: another admin command (wait for it to finish), npm start still starting (run this again once it says "API ready"), or npm start --engines (its admin commands take --target aws with the environment it printed: docs/local-aws-mode.md)`,
    );
    this.name = 'DataDirInUseError';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const lockFileOf = (dataDir: string) => join(dataDir, 'owner.pid');

/** The live process other than this one that owns the folder, or null (none, or one that died). */
export function liveOwnerOf(dataDir: string): number | null {
  let owner: number | undefined;
  try {
    owner = Number(readFileSync(lockFileOf(dataDir), 'utf8').trim());
  } catch {
    return null; // No owner yet.
  }
  return owner && owner !== process.pid && isAlive(owner) ? owner : null;
}

/** Claims the folder for this process; the returned function releases it. */
export function claimDataDir(dataDir: string): () => void {
  const lockFile = lockFileOf(dataDir);
  const owner = liveOwnerOf(dataDir);
  if (owner !== null) throw new DataDirInUseError(dataDir, owner);
  writeFileSync(lockFile, String(process.pid));
  return () => rmSync(lockFile, { force: true });
}
