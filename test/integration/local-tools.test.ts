import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimDataDir, DataDirInUseError } from '../../local/data-dir-lock';
import { startEmbeddedStack } from '../../local/embedded-stack';
import { runAdmin } from '../support/admin-cli';
import { startLocalServer } from '../support/local-server';
import { conformingFetch } from '../support/openapi-conformance';

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
    // The admin CLI says so in one line that names no class and suggests what helps.
    const locked = await runAdmin(['local', 'stats', '--data-dir', dataDir]);
    expect(locked.code).toBe(1);
    expect(
      locked.stderr
        .trim()
        .split('\n')
        .filter((line) => line.startsWith('admin:')),
    ).toEqual([
      `admin: the state folder ${dataDir} is in use by process ${process.ppid}: another admin command (wait for it to finish), npm start still starting (run this again once it says "API ready"), or npm start --engines (its admin commands take --target aws with the environment it printed: docs/local-aws-mode.md)`,
    ]);
    writeFileSync(join(dataDir, 'owner.pid'), '999999999'); // no such process: a stale file
    const stack = await startEmbeddedStack({ dataDir, seed: false });
    expect(() => claimDataDir(dataDir)).not.toThrow(); // same process may re-claim
    await stack.close();
  });
});

describe('npm start -- --data <folder>', () => {
  const fixtures = fileURLToPath(new URL('../fixtures/ingest', import.meta.url));
  let stateDir: string;
  beforeAll(() => {
    stateDir = mkdtempSync(join(tmpdir(), 'gcf-start-data-'));
  });
  afterAll(() => rmSync(stateDir, { recursive: true, force: true }));

  const start = async (...args: string[]) => {
    const server = await startLocalServer(args);
    return { output: server.output(), baseUrl: server.baseUrl, stop: server.stop };
  };

  it('imports the folder on first start, serves only that catalogue, and reuses it on the next start', async () => {
    const first = await start('--data', fixtures, '--data-dir', stateDir);
    const auth = { headers: { Authorization: `Bearer ${(JSON.parse(readFileSync(join(stateDir, 'keys.json'), 'utf8')) as { developer: string }).developer}` } };
    try {
      expect(first.output).toContain(`importing ${fixtures}`);
      expect(first.output).toMatch(/^rejected\s+3$/m); // the malformed fixtures
      const grants = (await (
        await conformingFetch(`${first.baseUrl}/grants-api?opportunity_type=all&status=posted,closed,forecasted&limit=100`, auth)
      ).json()) as any;
      expect(grants.pagination.total).toBe(18);
      expect(grants.results.every((grant: { source: string }) => grant.source !== 'synthetic')).toBe(true);
      const contracts = (await (await conformingFetch(`${first.baseUrl}/contracts-api?opportunity_type=all&count_only=true`, auth)).json()) as any;
      expect(contracts.pagination.total).toBe(6);
    } finally {
      await first.stop();
    }
    const second = await start('--data', fixtures, '--data-dir', stateDir);
    try {
      expect(second.output).toContain('serving the catalogue imported');
      expect(second.output).not.toContain('importing');
      expect(second.output).not.toContain('created one API key per tier'); // the keys of the first start stay
      const grants = (await (
        await conformingFetch(`${second.baseUrl}/grants-api?opportunity_type=all&status=posted,closed,forecasted&count_only=true`, auth)
      ).json()) as any;
      expect(grants.pagination.total).toBe(18);
    } finally {
      await second.stop();
    }
  });

  it('a missing --data folder is a clear error before any state is created', async () => {
    const missing = join(stateDir, 'no-such-folder');
    await expect(start('--data', missing, '--data-dir', join(stateDir, 'unused'))).rejects.toThrow(/no-such-folder: no such file or folder/);
    expect(existsSync(join(stateDir, 'unused'))).toBe(false);
  });
});
