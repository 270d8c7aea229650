import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { constantTimeEqual } from '../lambdas/core/auth/constant-time';

/**
 * A random credential made at each start, for the one case where the local table must be reached
 * over loopback TCP (other processes: the local AWS mode's functions and admin commands, tests of
 * `--target aws`). dynalite checks only that a request is signed, so every request is checked
 * here first: its SigV4 access key id must be this start's, or it is refused unread. Another user
 * of the machine can connect to the port, but not guess the key.
 */

export interface TableCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/** 128 random bits in the access key id, which is what is checked; a secret key to match. */
export function newTableCredentials(): TableCredentials {
  return {
    accessKeyId: `LOCAL${randomBytes(16).toString('hex').toUpperCase()}`,
    secretAccessKey: randomBytes(30).toString('base64url'),
  };
}

/** The access key id a SigV4-signed request names (Authorization header, or a presigned query). */
export function accessKeyIdOf(req: Pick<IncomingMessage, 'headers' | 'url'>): string | null {
  const authorization = typeof req.headers.authorization === 'string' ? req.headers.authorization : '';
  const inHeader = /\bCredential=([^/,\s]+)\//.exec(authorization)?.[1];
  if (inHeader) return inHeader;
  const credential = new URL(req.url ?? '/', 'http://local').searchParams.get('X-Amz-Credential');
  return credential?.split('/')[0] || null;
}

/** Whether the request is signed with this access key id (compared in constant time). */
export function signedWith(req: Pick<IncomingMessage, 'headers' | 'url'>, accessKeyId: string): boolean {
  return constantTimeEqual(accessKeyIdOf(req) ?? '', accessKeyId);
}

/** DynamoDB's answer to an unknown access key, and the connection closed: the body is never read. */
export function refuseUnknownKey(res: ServerResponse): void {
  const body = JSON.stringify({
    __type: 'com.amazon.coral.service#UnrecognizedClientException',
    message: 'The security token included in the request is invalid.',
  });
  res.writeHead(400, { 'Content-Type': 'application/x-amz-json-1.0', 'Content-Length': Buffer.byteLength(body), Connection: 'close' });
  res.end(body);
}

/** A listener that passes on only requests signed with the access key id. */
export function guardedListener(accessKeyId: string, listener: RequestListener): RequestListener {
  return (req, res) => (signedWith(req, accessKeyId) ? listener(req, res) : refuseUnknownKey(res));
}

export interface GuardedEndpoint {
  url: string;
  credentials: TableCredentials;
  close(): Promise<void>;
}

/** Serves `listener` on a loopback port, to requests signed with a new random credential only. */
export async function listenGuarded(listener: RequestListener): Promise<GuardedEndpoint> {
  const credentials = newTableCredentials();
  const server: Server = createServer(guardedListener(credentials.accessKeyId, listener));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    credentials,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
