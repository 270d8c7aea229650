import { mkdtempSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { channelFilesOf } from '../../local/admin-channel/channel-protocol';

/** A new state folder under the system's temp folder (short enough for the admin socket's path). */
export function freshStateFolder(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * Speaks to a server's admin channel directly: sends `request` as one frame (with the folder's
 * token, another one, or none when `token` is null), or a raw line, and collects what comes back
 * until the server closes the connection (`onText` sees it as it arrives).
 */
export async function rawFrames(
  dataDir: string,
  request: { argv: string[]; cwd: string; terminalColumns?: number } | string,
  options: { token?: string | null; onText?: (text: string) => void } = {},
): Promise<{ frames: Record<string, any>[] }> {
  const files = channelFilesOf(dataDir);
  const token = options.token === undefined ? readFileSync(files.token, 'utf8') : options.token;
  const line = typeof request === 'string' ? request : JSON.stringify({ type: 'run', ...(token === null ? {} : { token }), ...request });
  const answer = await new Promise<string>((resolve, reject) => {
    let connected = false;
    const socket = connect(files.socket, () => {
      connected = true;
      socket.write(`${line}\n`);
    });
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString();
      options.onText?.(text);
    });
    socket.on('close', () => resolve(text));
    // A server killed mid-answer resets the connection: what arrived before is the answer.
    socket.on('error', (error) => {
      if (!connected) reject(error);
    });
  });
  return {
    frames: answer
      .split('\n')
      .filter(Boolean)
      .map((frame) => JSON.parse(frame) as Record<string, any>),
  };
}
