import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendToServer } from '../../local/admin-channel/channel-client';
import { channelFilesOf } from '../../local/admin-channel/channel-protocol';
import { startEmbeddedStack } from '../../local/embedded-stack';
import { freshStateFolder, rawFrames } from '../support/admin-channel';
import { runAdmin } from '../support/admin-cli';
import { type RunningLocalServer, startLocalServer } from '../support/local-server';

/**
 * What goes wrong around the admin channel: a server killed in the middle of a command (with its
 * progress streamed to the caller's terminal), the socket it leaves behind, and a folder whose
 * owner is alive but does not answer. State stays whole, and every error is one clear line.
 */

let dataDir: string;
let bigFile: string;
let secondFile: string;
let server: RunningLocalServer;
const SERVER_ARGS = () => ['--data-dir', dataDir, '--grants', '20'];

/** Grants.gov search2 hits, one per line: enough that an ingest is still running when the server is killed. */
function writeManyGrants(file: string, count: number, firstId = 800_000): void {
  const lines = Array.from({ length: count }, (_, i) =>
    JSON.stringify({
      id: String(firstId + i),
      number: `TEST-2027-${firstId + i}`,
      title: `Watershed restoration planning grant ${i}`,
      agencyCode: 'DOC-NOAA',
      agency: 'DOC NOAA',
      openDate: '11/01/2026',
      closeDate: '12/31/2027',
      oppStatus: 'posted',
      docType: 'synopsis',
      cfdaList: ['11.463'],
    }),
  );
  writeFileSync(file, `${lines.join('\n')}\n`);
}

/** A stream that collects what is written, as a terminal `columns` wide (so progress bars are drawn). */
function terminal(onText: (text: string) => void): Writable & { isTTY: true; columns: number } {
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      onText(chunk.toString());
      done();
    },
  });
  return Object.assign(stream, { isTTY: true as const, columns: 100 });
}

beforeAll(async () => {
  dataDir = freshStateFolder('gcf-admin-dies-');
  bigFile = `${dataDir}-grants.jsonl`;
  writeManyGrants(bigFile, 1200);
  secondFile = `${dataDir}-more-grants.jsonl`;
  writeManyGrants(secondFile, 600, 900_000);
  server = await startLocalServer(SERVER_ARGS());
});
afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(bigFile, { force: true });
  rmSync(secondFile, { force: true });
});

describe('a server that dies mid-command, and what it leaves', () => {
  it('streams progress, reports the loss in one line, leaves the folder whole; its stale socket is passed over, then replaced', async () => {
    let progress = '';
    let killed: Promise<void> | null = null;
    let queued: ReturnType<typeof rawFrames> | null = null;
    const stderr = terminal((text) => {
      progress += text;
      if (killed || !/ingest \[.*\] \d+%/.test(progress)) return;
      // A second command while the ingest runs waits its turn; the server dies (once it has said so) before it gets one.
      let waiting: () => void;
      killed = new Promise<void>((resolve) => {
        waiting = resolve;
      }).then(() => server.kill());
      queued = rawFrames(
        dataDir,
        { argv: ['keys', 'create', '--tier', 'free', '--owner', 'queued@acme.org', '--data-dir', dataDir], cwd: process.cwd() },
        {
          onText: (text) => {
            if (text.includes('waiting for the admin command')) waiting();
          },
        },
      );
    });
    const stdout = terminal(() => undefined);
    const sending = sendToServer(dataDir, server.child.pid!, { argv: ['ingest', bigFile, '--data-dir', dataDir], cwd: process.cwd(), stdout, stderr });
    await expect(sending).rejects.toThrow(/^npm start \(process \d+\) stopped before the command finished: the steps it completed stand/);
    await killed;
    expect(progress).toMatch(/ingest \[.*\] \d+% \| [\d.]+\/[\d.]+ MB \| \d+ records/);
    // It was told why it waited, and it never ran: no exit frame, and no key for its owner (checked below).
    expect((await queued!).frames).toEqual([{ type: 'stderr', text: 'admin: waiting for the admin command under way to finish…\n' }]);

    // The socket and token stay (nothing cleaned up), but no live process owns the folder.
    expect(existsSync(channelFilesOf(dataDir).socket)).toBe(true);
    // An owner that is alive but is not the server (a reused pid): the channel does not answer, and the CLI says so.
    writeFileSync(`${dataDir}/owner.pid`, String(process.ppid));
    const unanswered = await runAdmin(['keys', 'list', '--data-dir', dataDir]);
    expect(unanswered.code).toBe(1);
    expect(unanswered.stderr.trim()).toMatch(
      new RegExp(
        `^admin: npm start \\(process ${process.ppid}\\) owns .+, but its admin channel does not answer \\(ECONNREFUSED\\): if it is still starting, run this again once it says "API ready"; if process ${process.ppid} is not npm start \\(a killed server's pid, reused\\), remove .+/owner\\.pid$`,
      ),
    );
    writeFileSync(`${dataDir}/owner.pid`, String(server.child.pid));

    // The CLI opens the folder itself; a write the server left half done is finished as it opens.
    const stats = await runAdmin(['local', 'stats', '--json', '--data-dir', dataDir]);
    expect(stats.code).toBe(0);
    const indexed = (JSON.parse(stats.stdout) as { records: { grant: number } }).records.grant;
    const stack = await startEmbeddedStack({ dataDir, seed: false });
    let stored = 0;
    try {
      for await (const page of stack.services.store.scan('grant')) stored += page.length;
    } finally {
      await stack.close();
    }
    expect(indexed).toBe(stored);
    expect(stored).toBeGreaterThanOrEqual(20);
    expect(stored).toBeLessThan(20 + 1200);

    // The next start replaces the stale socket; commands reach it again, and the ingest can be run to its end.
    server = await startLocalServer(SERVER_ARGS());
    const again = await runAdmin(['ingest', bigFile, '--json', '--data-dir', dataDir], {});
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ read: 1200, rejected: 0 });
    const after = JSON.parse((await runAdmin(['local', 'stats', '--json', '--data-dir', dataDir])).stdout) as { records: { grant: number } };
    expect(after.records.grant).toBe(20 + 1200);
    expect(server.output()).toMatch(/"command":"local stats"/);
    const keys = JSON.parse((await runAdmin(['keys', 'list', '--json', '--data-dir', dataDir])).stdout) as { owner: string }[];
    expect(keys.some((key) => key.owner === 'queued@acme.org')).toBe(false);
  }, 240_000);

  it('stopping the server lets the command under way finish, refuses those waiting, and drops one whose caller left', async () => {
    let progress = '';
    let queued: ReturnType<typeof rawFrames> | null = null;
    let stopped: Promise<void> | null = null;
    const stderr = terminal((text) => {
      progress += text;
      if (stopped || !/ingest \[.*\] \d+%/.test(progress)) return;
      // A caller that leaves (Ctrl-C) while its command waits its turn.
      let left: () => void;
      const leftQueue = new Promise<void>((resolve) => {
        left = resolve;
      });
      const leaving = connect(channelFilesOf(dataDir).socket, () => {
        leaving.write(
          `${JSON.stringify({ type: 'run', token: readFileSync(channelFilesOf(dataDir).token, 'utf8'), argv: ['keys', 'create', '--tier', 'free', '--owner', 'left@acme.org', '--data-dir', dataDir], cwd: process.cwd() })}\n`,
        );
      });
      leaving.on('data', (chunk) => {
        if (!chunk.toString().includes('waiting for the admin command')) return;
        leaving.destroy();
        left();
      });
      leaving.on('error', () => undefined);
      // Then one that waits, and the server is stopped once it has been told it waits.
      let waiting: () => void;
      const told = new Promise<void>((resolve) => {
        waiting = resolve;
      });
      stopped = Promise.all([told, leftQueue]).then(() => server.stop());
      queued = rawFrames(
        dataDir,
        { argv: ['keys', 'create', '--tier', 'free', '--owner', 'waiting@acme.org', '--data-dir', dataDir], cwd: process.cwd() },
        {
          onText: (text) => {
            if (text.includes('waiting for the admin command')) waiting();
          },
        },
      );
    });
    const stdout = terminal(() => undefined);
    const exitCode = await sendToServer(dataDir, server.child.pid!, {
      argv: ['ingest', secondFile, '--data-dir', dataDir],
      cwd: process.cwd(),
      stdout,
      stderr,
    });
    await stopped;
    expect(exitCode).toBe(0);
    expect(server.output()).toMatch(/stopping: waiting for the admin command under way to finish/);
    expect((await queued!).frames).toEqual([
      { type: 'stderr', text: 'admin: waiting for the admin command under way to finish…\n' },
      { type: 'refused', reason: 'the server is stopping; the command did not run' },
    ]);
    // On the stopped folder: the ingest is whole, and neither waiting command ran.
    const stats = JSON.parse((await runAdmin(['local', 'stats', '--json', '--data-dir', dataDir])).stdout) as { records: { grant: number } };
    expect(stats.records.grant).toBe(20 + 1200 + 600);
    const owners = (JSON.parse((await runAdmin(['keys', 'list', '--json', '--data-dir', dataDir])).stdout) as { owner: string }[]).map((key) => key.owner);
    expect(owners).not.toContain('waiting@acme.org');
    expect(owners).not.toContain('left@acme.org');
  }, 240_000);
});
