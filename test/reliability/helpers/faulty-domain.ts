import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A search domain that goes down on request: a loopback proxy in front of a working domain (a
 * stand-in, or a real OpenSearch node) that, by `mode`, forwards (up), answers 503 as an
 * overloaded domain does, answers 429 as a node whose search queue is full does, forwards each
 * request only after SLOW_DOMAIN_MS (a domain slower than the query deadline), resets each
 * connection as a request arrives, accepts requests and never answers, or closes its port
 * (connection refused) and opens it again on the same port when set back. `429-knn` answers 429
 * to the k-NN searches alone (a node whose search queue fills with the costly ones) and forwards
 * every other request.
 */
export type DomainMode = 'up' | '503' | '429' | '429-knn' | 'slow' | 'reset' | 'hang' | 'down';

const QUEUE_FULL = JSON.stringify({
  error: { type: 'es_rejected_execution_exception', reason: 'rejected execution of coordinating operation [search queue is full]' },
  status: 429,
});

/** How long the `slow` domain holds each request before forwarding it: past the 8 s query deadline. */
export const SLOW_DOMAIN_MS = 9_000;

export interface FaultyDomain {
  endpoint: string;
  /** Requests that reached the proxy while it was listening. */
  readonly requests: number;
  setMode(mode: DomainMode): Promise<void>;
  close(): Promise<void>;
}

export async function startFaultyDomain(upstream: string): Promise<FaultyDomain> {
  let mode: DomainMode = 'up';
  let requests = 0;
  const sockets = new Set<Socket>();
  const target = new URL(upstream);

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    requests++;
    if (mode === 'hang') return; // read nothing, answer nothing
    if (mode === 'reset') {
      req.socket.destroy();
      return;
    }
    if (mode === '503') {
      req.resume();
      res
        .writeHead(503, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { type: 'cluster_block_exception', reason: 'overloaded' }, status: 503 }));
      return;
    }
    if (mode === '429') {
      req.resume();
      res.writeHead(429, { 'content-type': 'application/json' }).end(QUEUE_FULL);
      return;
    }
    if (mode === '429-knn') {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        if (body.includes('"knn"')) res.writeHead(429, { 'content-type': 'application/json' }).end(QUEUE_FULL);
        else forward(req, res, body);
      });
      return;
    }
    if (mode === 'slow') {
      const timer = setTimeout(() => forward(req, res), SLOW_DOMAIN_MS);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    forward(req, res);
  };

  /** Sends the request on (its body already read when given) and pipes the answer back. */
  const forward = (req: IncomingMessage, res: ServerResponse, body?: Buffer) => {
    const upstreamRequest = httpRequest({ hostname: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstreamRequest.on('error', () => res.destroy());
    if (body) upstreamRequest.end(body);
    else req.pipe(upstreamRequest);
  };

  let server!: Server;
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server = createServer(handle);
      server.on('connection', (socket) => {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
  const shut = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });

  await listen(0);
  const port = (server.address() as AddressInfo).port;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    get requests() {
      return requests;
    },
    async setMode(next) {
      if (next === mode) return;
      // Whatever hung, or the port closing: the connections made so far break.
      for (const socket of sockets) socket.destroy();
      if (next === 'down') await shut();
      if (mode === 'down') await listen(port);
      mode = next;
    },
    async close() {
      if (mode !== 'down') await shut();
    },
  };
}
