import { spawnSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedStack } from '../../local/embedded-stack';
import { ensureLocalKeys } from '../../local/local-keys';
import { listeningSocketsOf } from '../support/listening-sockets';
import { startLocalServer } from '../support/local-server';

/**
 * The audit's finding: another user of the machine read webhook secrets from a world-readable
 * state folder and minted a developer key with two PutItem calls on dynalite's loopback port.
 * Here: every folder and file of the state is its owner's alone, the stack listens on nothing,
 * `npm start` listens on the API's port (and the admin channel's socket in the state folder)
 * only, the keys never reach its output when that is not a terminal, and, when the test runs as
 * root, a process of the user nobody can neither read the state nor write to any port it has.
 */

const SMALL = { funders: 6, grants: 30, contracts: 10, awardedGrants: 3, awardedContracts: 2 };
const NOBODY = 65534;

const parent = mkdtempSync(join(tmpdir(), 'gcf-private-'));
// mkdtemp makes a 700 folder; opened up, the state folder's own modes are all that protect it.
chmodSync(parent, 0o755);
afterAll(() => rmSync(parent, { recursive: true, force: true }));

/** Every path under the folder (itself included) whose mode is not owner-only: 700 for folders, 600 for the rest. */
function notPrivate(root: string): string[] {
  const found: string[] = [];
  const walk = (path: string) => {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return;
    const mode = stat.mode & 0o777;
    if (stat.isDirectory()) {
      if (mode !== 0o700) found.push(`${path} ${mode.toString(8)}`);
      for (const name of readdirSync(path)) walk(join(path, name));
    } else if (mode !== 0o600) found.push(`${path} ${mode.toString(8)}`);
  };
  walk(root);
  return found;
}

/** Run as the user nobody: what reading the state and a PutItem on each port come to. */
function asNobody(dataDir: string, ports: number[]): { reads: Record<string, string>; puts: Record<string, string> } {
  const script = `
    const fs = require('node:fs');
    const reads = {};
    for (const path of ${JSON.stringify([dataDir, join(dataDir, 'keys.json'), join(dataDir, 'dynamodb'), join(dataDir, 'dynamodb', 'CURRENT')])}) {
      try { fs.statSync(path).isDirectory() ? fs.readdirSync(path) : fs.readFileSync(path); reads[path] = 'read'; } catch (error) { reads[path] = error.code; }
    }
    const item = JSON.stringify({ TableName: 'gcf-records', Item: { pk: { S: 'key#minted' }, sk: { S: 'key' }, tier: { S: 'developer' } } });
    const headers = { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.PutItem', 'x-amz-date': '20260101T000000Z',
      authorization: 'AWS4-HMAC-SHA256 Credential=local/20260101/local/dynamodb/aws4_request, SignedHeaders=host, Signature=0' };
    Promise.all(${JSON.stringify(ports)}.map((port) => fetch('http://127.0.0.1:' + port + '/', { method: 'POST', headers, body: item })
      .then(async (res) => [port, res.status + ' ' + (await res.text()).slice(0, 120)], (error) => [port, 'no answer: ' + error.message])))
      .then((puts) => console.log(JSON.stringify({ reads, puts: Object.fromEntries(puts) })));
  `;
  const run = spawnSync(process.execPath, ['-e', script], { uid: NOBODY, gid: NOBODY, cwd: '/', encoding: 'utf8', timeout: 30_000 });
  if (run.status !== 0) throw new Error(`the script as nobody failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as { reads: Record<string, string>; puts: Record<string, string> };
}

describe('the local state is private', () => {
  it('a stack narrows an existing folder to 700/600, keeps what it creates there private, and opens no socket', async () => {
    const dataDir = join(parent, 'existing');
    // A folder as an earlier version left it: open to everyone.
    mkdirSync(join(dataDir, 'dynamodb'), { recursive: true });
    writeFileSync(join(dataDir, 'dynamodb', 'LOG.old'), 'old');
    writeFileSync(join(dataDir, 'keys.json'), '{}');
    chmodSync(dataDir, 0o755);
    chmodSync(join(dataDir, 'dynamodb'), 0o755);
    chmodSync(join(dataDir, 'dynamodb', 'LOG.old'), 0o644);
    chmodSync(join(dataDir, 'keys.json'), 0o644);
    expect(notPrivate(dataDir)).toHaveLength(4);

    const before = listeningSocketsOf(process.pid);
    const stack = await startEmbeddedStack({ dataDir, seed: SMALL });
    try {
      await ensureLocalKeys(stack.services, dataDir);
      expect(listeningSocketsOf(process.pid)).toEqual(before);
      expect(stack.tableEndpoint).toBeNull();
      // The stack's own clients reach the table in process.
      const client = stack.dynamoClient();
      expect((await client.send(new ListTablesCommand({}))).TableNames).toEqual(['gcf-records']);
      client.destroy();
      expect(notPrivate(dataDir)).toEqual([]);
    } finally {
      await stack.close();
    }
    expect(notPrivate(dataDir)).toEqual([]);
    expect(readdirSync(join(dataDir, 'dynamodb')).length).toBeGreaterThan(2);
  });

  it('npm start listens on the API port only, prints no key into redirected output, and another user reaches nothing', async () => {
    const dataDir = join(parent, 'served');
    const server = await startLocalServer(['--data-dir', dataDir, '--grants', '30']);
    try {
      const apiPort = Number(new URL(server.baseUrl).port);
      const sockets = listeningSocketsOf(server.child.pid!);
      expect(sockets.tcp.map((s) => s.port)).toEqual([apiPort]);
      expect(sockets.unix).toEqual([join(dataDir, 'admin-channel', 'socket')]);

      const keys = JSON.parse(readFileSync(join(dataDir, 'keys.json'), 'utf8')) as Record<string, string>;
      expect(Object.keys(keys).sort()).toEqual(['basic', 'developer', 'free', 'pro']);
      for (const key of Object.values(keys)) expect(server.output()).not.toContain(key);
      expect(server.output()).toContain('not shown here, as output is not a terminal');
      // The dashboard's development password is kept the same way: in the folder, not in redirected output.
      const signInFile = join(dataDir, 'oidc-provider.json');
      expect(server.output()).not.toContain(
        (JSON.parse(readFileSync(signInFile, 'utf8')) as { developmentAccount: { password: string } }).developmentAccount.password,
      );
      expect(server.output()).toContain(`development account developer@localhost.test (password in ${signInFile})`);
      expect(notPrivate(dataDir)).toEqual([]);

      if (process.getuid?.() !== 0) return; // Only root may run a process as another user.
      const { reads, puts } = asNobody(
        dataDir,
        sockets.tcp.map((s) => s.port),
      );
      expect(Object.values(reads)).toEqual(['EACCES', 'EACCES', 'EACCES', 'EACCES']);
      // The API's port answers a DynamoDB call as a route it does not have, with no store behind it.
      expect(puts).toEqual({ [apiPort]: expect.stringMatching(/^404 \{"error":\{"code":"NOT_FOUND"/) });
    } finally {
      await server.stop();
    }
    expect(notPrivate(dataDir)).toEqual([]);
  });
});
