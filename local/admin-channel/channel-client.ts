// The CLI side of the admin channel: sends the command to the server that owns the state folder
// and relays what it prints, then exits with its code.
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { channelFilesOf, readFrames, writeFrame } from './channel-protocol';

/** The channel cannot carry the command (no token, a stale socket, a refusal, a server gone mid-command): one line for the CLI. */
export class AdminChannelError extends Error {}

export interface ChannelCaller {
  argv: string[];
  cwd: string;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
}

/** The token the server wrote at its start; only the user who started it can read it. */
export function readToken(dataDir: string, owner: number): string {
  try {
    return readFileSync(channelFilesOf(dataDir).token, 'utf8').trim();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new AdminChannelError(
      code === 'EACCES'
        ? `the admin channel of ${dataDir} belongs to another user: run this as the user who started npm start (process ${owner})`
        : `npm start (process ${owner}) owns ${dataDir} but has not opened its admin channel (is it still starting? run this again once it says "API ready")`,
    );
  }
}

/** Runs the command on the server (process `owner`) that owns `dataDir`; resolves with its exit code. */
export function sendToServer(dataDir: string, owner: number, caller: ChannelCaller): Promise<number> {
  const token = readToken(dataDir, owner);
  const { socket: socketPath } = channelFilesOf(dataDir);
  return new Promise<number>((resolve, reject) => {
    let connected = false;
    let outcome: number | Error | undefined;
    const socket = connect(socketPath, () => {
      connected = true;
      writeFrame(socket, {
        type: 'run',
        token,
        argv: caller.argv,
        cwd: caller.cwd,
        ...(caller.stderr.isTTY && caller.stderr.columns ? { terminalColumns: caller.stderr.columns } : {}),
      });
    });
    readFrames(socket, (frame) => {
      if (frame.type === 'stdout' && typeof frame.text === 'string') caller.stdout.write(frame.text);
      else if (frame.type === 'stderr' && typeof frame.text === 'string') caller.stderr.write(frame.text);
      else if (frame.type === 'exit' && typeof frame.code === 'number') outcome = frame.code;
      else if (frame.type === 'refused') outcome = new AdminChannelError(`npm start (process ${owner}) refused the admin command: ${String(frame.reason)}`);
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (connected) return; // the close below says what it means
      // A server starting up after a kill has claimed the folder but not yet replaced the old socket.
      outcome = new AdminChannelError(
        `npm start (process ${owner}) owns ${dataDir}, but its admin channel does not answer (${error.code ?? error.message}): if it is still starting, run this again once it says "API ready"; if process ${owner} is not npm start (a killed server's pid, reused), remove ${dataDir}/owner.pid`,
      );
    });
    socket.on('close', () => {
      if (typeof outcome === 'number') resolve(outcome);
      else
        reject(
          outcome ??
            new AdminChannelError(
              `npm start (process ${owner}) stopped before the command finished: the steps it completed stand, and a write it left half done is finished the next time the state folder is opened; check the state (admin local stats, keys list, webhooks list) before running it again`,
            ),
        );
    });
  });
}
