import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * One process at a time may own a state folder: LevelDB allows a single opener, and dynalite
 * reports a second one only as a crash deep inside its callbacks. A pid file turns that into a
 * clear message before anything is opened; a stale file (its process gone) is taken over.
 */
export class DataDirInUseError extends Error {
  constructor(dataDir: string, pid: number) {
    super(`the state folder ${dataDir} is in use by process ${pid} (\`npm start\`, or another admin command): stop that process, then run this again`);
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

/** Claims the folder for this process; the returned function releases it. */
export function claimDataDir(dataDir: string): () => void {
  const lockFile = join(dataDir, 'owner.pid');
  let owner: number | undefined;
  try {
    owner = Number(readFileSync(lockFile, 'utf8').trim());
  } catch {
    // No owner yet.
  }
  if (owner && owner !== process.pid && isAlive(owner)) throw new DataDirInUseError(dataDir, owner);
  writeFileSync(lockFile, String(process.pid));
  return () => rmSync(lockFile, { force: true });
}
