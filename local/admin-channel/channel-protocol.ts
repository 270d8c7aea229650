// The admin channel's wire format: newline-delimited JSON frames over the Unix socket in the state
// folder. The client sends one request; the server answers with output frames and one exit frame.

import type { Socket } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** A command for the running server: the CLI's arguments as typed, and where they were typed. */
export interface AdminRequest {
  type: 'run';
  token: string;
  argv: string[];
  /** Relative paths in argv (ingest's files, --rejections, --data-dir) are the caller's. */
  cwd: string;
  /** The caller's stderr is a terminal this wide: progress bars are drawn for it. Absent otherwise. */
  terminalColumns?: number;
}

export type ServerFrame =
  | { type: 'stdout'; text: string }
  | { type: 'stderr'; text: string }
  | { type: 'exit'; code: number }
  | { type: 'refused'; reason: string };

/**
 * Linux refuses Unix socket paths of 108 bytes or more (sun_path); such a state folder gets no
 * channel, and the CLI says so instead of failing obscurely.
 */
export const MAX_SOCKET_PATH_BYTES = 107;

/** The folder (mode 700) holding the socket and the token (mode 600): only the owner reaches either. */
export function channelFilesOf(dataDir: string): { folder: string; socket: string; token: string } {
  const folder = join(dataDir, 'admin-channel');
  return { folder, socket: join(folder, 'socket'), token: join(folder, 'token') };
}

export function writeFrame(socket: Socket, frame: AdminRequest | ServerFrame): void {
  if (!socket.destroyed && socket.writable) socket.write(`${JSON.stringify(frame)}\n`);
}

/** Calls `onFrame` with each frame the peer sends; a line that is not a JSON object ends the connection. */
export function readFrames(socket: Socket, onFrame: (frame: Record<string, unknown>) => void): void {
  const lines = createInterface({ input: socket, crlfDelay: Infinity });
  // readline passes the socket's errors on; the socket's own 'error' listener handles them.
  lines.on('error', () => undefined);
  lines.on('line', (line) => {
    let frame: unknown;
    try {
      frame = JSON.parse(line);
    } catch {
      frame = null;
    }
    if (typeof frame !== 'object' || frame === null || Array.isArray(frame)) {
      socket.destroy();
      return;
    }
    onFrame(frame as Record<string, unknown>);
  });
}
