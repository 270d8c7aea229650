// Where an admin command runs: in the CLI's own process (on a stopped state folder, or a stage), or
// inside the local server that owns the folder (over the admin channel). Commands print and reach
// local state only through this, so one program serves both.

import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { channelFilesOf } from '../local/admin-channel/channel-protocol';
import { liveOwnerOf } from '../local/data-dir-lock';
import type { EmbeddedStack } from '../local/embedded-stack';
import { startEmbeddedStack } from '../local/embedded-stack';
import { stderrTerminal } from '../local/ingest-report';

export interface AdminIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** A terminal to draw progress on (the caller's stderr), or null when it is not one. */
  progressStream: NodeJS.WritableStream | null;
}

export interface AdminContext {
  io: AdminIo;
  /** The caller's working folder: relative paths on the command line are resolved against it. */
  cwd: string;
  /** Set by a command that fails without throwing (ingest --strict, a webhook test that was not delivered). */
  exitCode: number;
  /** Runs with the local state: opened for this command (and closed), or the running server's own. */
  withLocalStack<T>(dataDir: string, run: (stack: EmbeddedStack) => Promise<T>): Promise<T>;
  /** Rebuilds the local search index from the record store. */
  rebuildLocalIndex(dataDir: string): Promise<void>;
  /** Called with the command about to run, once its options are parsed; it may refuse it by throwing. */
  beforeAction?(command: Command): void;
}

/** A note for people: stderr, so stdout stays the result (one JSON document with --json). */
export function note(context: AdminContext, line: string): void {
  context.io.stderr(`${line}\n`);
}

/** The folder is owned by a running server with an admin channel: the command is sent there instead. */
export class ServedByRunningServer extends Error {
  constructor(
    readonly dataDir: string,
    readonly owner: number,
  ) {
    super(`${dataDir} is served by process ${owner}`);
  }
}

/** The CLI's context: its own stdout and stderr, and the state folder opened in this process. */
export function processContext(): AdminContext {
  const context: AdminContext = {
    io: {
      stdout: (text) => process.stdout.write(text),
      stderr: (text) => process.stderr.write(text),
      progressStream: stderrTerminal(),
    },
    cwd: process.cwd(),
    exitCode: 0,
    withLocalStack: (dataDir, run) => withOpenedStack(context, dataDir, false, run),
    rebuildLocalIndex: (dataDir) => withOpenedStack(context, dataDir, true, async () => undefined),
  };
  return context;
}

/** The folder's stack, opened in this process for `run` (its index dropped first with `freshIndex`), then closed. */
async function withOpenedStack<T>(context: AdminContext, dataDir: string, freshIndex: boolean, run: (stack: EmbeddedStack) => Promise<T>): Promise<T> {
  refuseIfServed(dataDir);
  const stack = await startEmbeddedStack({ dataDir, seed: false, freshIndex, onProgress: (m) => note(context, m) });
  try {
    return await run(stack);
  } finally {
    await stack.close();
  }
}

/** Hands the command to the server when a live one owns the folder and has opened its channel. */
function refuseIfServed(dataDir: string): void {
  const owner = liveOwnerOf(dataDir);
  if (owner !== null && existsSync(channelFilesOf(dataDir).socket)) throw new ServedByRunningServer(resolve(dataDir), owner);
}
