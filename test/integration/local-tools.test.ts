import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimDataDir, DataDirInUseError } from '../../local/data-dir-lock';
import { startEmbeddedStack } from '../../local/embedded-stack';

const run = promisify(execFile);
const SMALL = { funders: 15, grants: 90, contracts: 40, awardedGrants: 10, awardedContracts: 5 };

let dataDir: string;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'gcf-admin-'));
  const stack = await startEmbeddedStack({ dataDir, seed: SMALL });
  await stack.close();
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function admin(...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'bin/admin.ts', ...args, '--data-dir', dataDir], { timeout: 60_000 });
  return stdout;
}

describe('admin local commands', () => {
  it('stats counts every kind, awarded records included', async () => {
    const out = await admin('local', 'stats');
    expect(out).toMatch(/^grant\s+90$/m);
    expect(out).toMatch(/^contract\s+40$/m);
    expect(out).toMatch(/^funder\s+15$/m);
  });

  it('reindex rebuilds the index from the record store', async () => {
    expect(await admin('local', 'reindex')).toContain('index rebuilt');
    expect(await admin('local', 'stats')).toMatch(/^grant\s+90$/m);
  });
});

describe('state folder ownership', () => {
  it('a folder owned by another live process is refused; a stale owner is taken over', async () => {
    // Our parent process is alive and is not us: it stands in for a second `npm start`.
    writeFileSync(join(dataDir, 'owner.pid'), String(process.ppid));
    expect(() => claimDataDir(dataDir)).toThrow(DataDirInUseError);
    await expect(startEmbeddedStack({ dataDir, seed: false })).rejects.toThrow(/in use by process/);
    writeFileSync(join(dataDir, 'owner.pid'), '999999999'); // no such process: a stale file
    const stack = await startEmbeddedStack({ dataDir, seed: false });
    expect(() => claimDataDir(dataDir)).not.toThrow(); // same process may re-claim
    await stack.close();
  });
});
