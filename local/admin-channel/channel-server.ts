// The server side of the admin channel: `npm start` takes admin commands on a Unix socket in its
// state folder, so `npm run admin` works while the server owns the folder. Never on the API's port,
// and never deployed: only the local server opens it.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { isAbsolute } from 'node:path';
import { Writable } from 'node:stream';
import { type AdminRequest, channelFilesOf, MAX_SOCKET_PATH_BYTES, readFrames, writeFrame } from './channel-protocol';

/** What a command run for a client writes to: the client's stdout and stderr, over the socket. */
export interface ChannelIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** The client's terminal, for progress bars; null when its stderr is not one. */
  progressStream: NodeJS.WritableStream | null;
}

export interface AdminChannelOptions {
  dataDir: string;
  /** Runs one command for a client: its exit code, and its name (`keys create`) once parsed, for the log. */
  run(request: AdminRequest, io: ChannelIo): Promise<{ exitCode: number; command: string | null }>;
  /** One line per event for the server's log: never the arguments (they may name people or hold keys). */
  log(message: string, fields: Record<string, unknown>): void;
}

export interface AdminChannel {
  socketPath: string;
  /**
   * Stops taking commands: those waiting are refused, and the one under way may finish (within
   * `graceMs`), so the stack is not closed under it.
   */
  close(graceMs: number): Promise<void>;
}

/** The state folder's path is too long for a socket: the server runs without the channel. */
export class AdminChannelUnavailable extends Error {}

/** A client that sends no request this long after connecting is dropped. */
const REQUEST_TIMEOUT_MS = 10_000;

function sameToken(given: unknown, expected: Buffer): boolean {
  if (typeof given !== 'string') return false;
  const buffer = Buffer.from(given);
  return buffer.length === expected.length && timingSafeEqual(buffer, expected);
}

function isRequest(frame: Record<string, unknown>): frame is Record<string, unknown> & AdminRequest {
  return (
    frame.type === 'run' &&
    Array.isArray(frame.argv) &&
    frame.argv.every((a) => typeof a === 'string') &&
    typeof frame.cwd === 'string' &&
    isAbsolute(frame.cwd) &&
    (frame.terminalColumns === undefined || (Number.isInteger(frame.terminalColumns) && (frame.terminalColumns as number) > 0))
  );
}

/** A terminal-like stream whose bytes go to the client's stderr: cli-progress draws its bar on it. */
function clientTerminal(socket: Socket, columns: number): NodeJS.WritableStream {
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      writeFrame(socket, { type: 'stderr', text: chunk.toString() });
      done();
    },
  });
  return Object.assign(stream, { isTTY: true, columns });
}

/**
 * Opens the channel: a fresh token (mode 600) and the socket, in a folder only the owner can
 * enter. Commands run one at a time, as they do on a stopped folder (whose lock admits one).
 */
export async function openAdminChannel(options: AdminChannelOptions): Promise<AdminChannel> {
  const files = channelFilesOf(options.dataDir);
  if (Buffer.byteLength(files.socket) > MAX_SOCKET_PATH_BYTES) {
    throw new AdminChannelUnavailable(
      `the state folder's path is too long for the admin socket (${files.socket}: ${Buffer.byteLength(files.socket)} bytes, at most ${MAX_SOCKET_PATH_BYTES})`,
    );
  }
  mkdirSync(files.folder, { recursive: true, mode: 0o700 });
  chmodSync(files.folder, 0o700);
  // A socket left by a server that was killed; the folder lock says no live server owns it.
  rmSync(files.socket, { force: true });
  const token = randomBytes(32).toString('base64url');
  writeFileSync(files.token, token, { mode: 0o600 });
  chmodSync(files.token, 0o600);
  const expected = Buffer.from(token);

  let queue: Promise<unknown> = Promise.resolve();
  let running = false;
  let closing = false;
  const clients = new Set<Socket>();

  const serve = (socket: Socket, request: AdminRequest) => {
    const io: ChannelIo = {
      stdout: (text) => writeFrame(socket, { type: 'stdout', text }),
      stderr: (text) => writeFrame(socket, { type: 'stderr', text }),
      progressStream: request.terminalColumns ? clientTerminal(socket, request.terminalColumns) : null,
    };
    if (running) io.stderr('admin: waiting for the admin command under way to finish…\n');
    queue = queue.then(async () => {
      // One that never started is dropped when its caller is gone (Ctrl-C) or the server stops:
      // running it later would surprise whoever retries it.
      if (socket.destroyed) return;
      if (closing) {
        writeFrame(socket, { type: 'refused', reason: 'the server is stopping; the command did not run' });
        socket.end();
        return;
      }
      running = true;
      const started = Date.now();
      // A caller that goes away once it has started does not stop it: stopping a write halfway is worse.
      const { exitCode, command } = await options
        .run(request, io)
        .catch(() => ({ exitCode: 1, command: null }))
        .finally(() => {
          running = false;
        });
      options.log('admin command', { command: command ?? '(not parsed)', exitCode, ms: Date.now() - started, callerGone: socket.destroyed });
      writeFrame(socket, { type: 'exit', code: exitCode });
      socket.end();
    });
  };

  const server: Server = createServer((socket) => {
    clients.add(socket);
    socket.on('close', () => clients.delete(socket));
    socket.on('error', () => socket.destroy());
    socket.setTimeout(REQUEST_TIMEOUT_MS, () => socket.destroy());
    let answered = false;
    readFrames(socket, (frame) => {
      if (answered) return;
      answered = true;
      socket.setTimeout(0);
      if (!sameToken(frame.token, expected)) {
        options.log('admin channel refused a connection', { reason: 'wrong or missing token' });
        writeFrame(socket, { type: 'refused', reason: 'wrong or missing token' });
        socket.end();
        return;
      }
      if (!isRequest(frame)) {
        writeFrame(socket, { type: 'refused', reason: 'not an admin request' });
        socket.end();
        return;
      }
      serve(socket, frame);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(files.socket, () => resolve());
  });
  chmodSync(files.socket, 0o600);

  return {
    socketPath: files.socket,
    async close(graceMs) {
      closing = true;
      if (running) options.log('stopping: waiting for the admin command under way to finish (a second Ctrl-C stops at once)', { graceMs });
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.race([queue, new Promise((resolve) => setTimeout(resolve, graceMs).unref())]);
      // Callers still connected (a command past its grace) learn that the server stopped.
      for (const socket of clients) socket.destroy();
      await closed;
      rmSync(files.folder, { recursive: true, force: true });
    },
  };
}
