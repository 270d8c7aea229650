// The server side of the admin channel: `npm start` takes admin commands on a Unix socket in its
// state folder, so `npm run admin` works while the server owns the folder. Never on the API's port,
// and never deployed: only the local server opens it.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { channelFilesOf, MAX_SOCKET_PATH_BYTES, readFrames, writeFrame, type AdminRequest } from './channel-protocol';

/** What a command run for a client writes to: the client's stdout and stderr, over the socket. */
export interface ChannelIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** The client's terminal, for progress bars; null when its stderr is not one. */
  progressStream: NodeJS.WritableStream | null;
}

export interface AdminChannelOptions {
  dataDir: string;
  /** Runs one command for a client and resolves with its exit code; never rejects. */
  run(request: AdminRequest, io: ChannelIo): Promise<number>;
  /** One line per event for the server's log: never the arguments (they may name people or hold keys). */
  log(message: string, fields: Record<string, unknown>): void;
}

export interface AdminChannel {
  socketPath: string;
  close(): Promise<void>;
}

/** The state folder's path is too long for a socket: the server runs without the channel. */
export class AdminChannelUnavailable extends Error {}

/** A client that sends no request this long after connecting is dropped. */
const REQUEST_TIMEOUT_MS = 10_000;

/**
 * The command's name for the log and for whoever waits behind it (`keys create`): its leading
 * command words only, never a value (an owner, a path, an id).
 */
export function commandNameOf(argv: readonly string[]): string {
  const words: string[] = [];
  for (const word of argv) {
    if (!/^[a-z][a-z-]*$/.test(word) || words.length === 2) break;
    words.push(word);
  }
  return words.join(' ') || '(none)';
}

function sameToken(given: unknown, expected: Buffer): boolean {
  if (typeof given !== 'string') return false;
  const buffer = Buffer.from(given);
  return buffer.length === expected.length && timingSafeEqual(buffer, expected);
}

function isRequest(frame: Record<string, unknown>): frame is Record<string, unknown> & AdminRequest {
  return frame.type === 'run' && Array.isArray(frame.argv) && frame.argv.every((a) => typeof a === 'string') && typeof frame.cwd === 'string'
    && (frame.terminalColumns === undefined || (Number.isInteger(frame.terminalColumns) && (frame.terminalColumns as number) > 0));
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
    throw new AdminChannelUnavailable(`the state folder's path is too long for the admin socket (${files.socket}: ${Buffer.byteLength(files.socket)} bytes, at most ${MAX_SOCKET_PATH_BYTES})`);
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
  let running: string | null = null;
  const clients = new Set<Socket>();

  const serve = (socket: Socket, request: AdminRequest) => {
    const name = commandNameOf(request.argv);
    const io: ChannelIo = {
      stdout: (text) => writeFrame(socket, { type: 'stdout', text }),
      stderr: (text) => writeFrame(socket, { type: 'stderr', text }),
      progressStream: request.terminalColumns ? clientTerminal(socket, request.terminalColumns) : null,
    };
    if (running) io.stderr(`admin: waiting for the admin command under way (${running}) to finish…\n`);
    queue = queue.then(async () => {
      running = name;
      const started = Date.now();
      // A client that went away (Ctrl-C) does not stop the command: stopping a write halfway is worse.
      const code = await options.run(request, io).catch(() => 1).finally(() => { running = null; });
      options.log('admin command', { command: name, exitCode: code, ms: Date.now() - started, clientGone: socket.destroyed });
      writeFrame(socket, { type: 'exit', code });
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
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Clients still waiting learn the server stopped (their command may have run partly).
        for (const socket of clients) socket.destroy();
      });
      rmSync(files.folder, { recursive: true, force: true });
    },
  };
}
