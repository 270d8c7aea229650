import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { seededRandom } from '../../../local/seeded-random';

/**
 * A webhook receiver that flaps: it alternates between up (204) and one of several ways of being
 * down, each phase lasting a random while (a seeded generator, so a run can be replayed): 500s,
 * hanging until the sender gives up, resetting the connection, its port closed, or taking the
 * request and dropping the connection before answering (the sender cannot know it arrived, so it
 * sends it again: at-least-once). When told to settle it stays up.
 */
export type ReceiverPhase = 'up' | '500' | 'hang' | 'reset' | 'closed' | 'ack-lost';
const DOWN_PHASES: readonly ReceiverPhase[] = ['500', 'hang', 'reset', 'closed', 'ack-lost'];

export interface ReceivedRequest {
  phase: ReceiverPhase;
  body: string;
  headers: IncomingMessage['headers'];
  /** Whether it was answered 2xx. */
  acknowledged: boolean;
}

export interface FlappingReceiver {
  url: string;
  received: ReceivedRequest[];
  /** Time spent in each phase so far (ms), and how many phases of each kind there were. */
  phases: Map<ReceiverPhase, { count: number; ms: number }>;
  /** Stop flapping and stay up. */
  settle(): Promise<void>;
  close(): Promise<void>;
}

export async function startFlappingReceiver(options: { seed: number; upMs: [number, number]; downMs: [number, number] }): Promise<FlappingReceiver> {
  const random = seededRandom(options.seed);
  const between = ([low, high]: [number, number]) => low + random() * (high - low);
  const received: ReceivedRequest[] = [];
  const phases = new Map<ReceiverPhase, { count: number; ms: number }>();
  const sockets = new Set<Socket>();
  let phase: ReceiverPhase = 'up';
  let phaseStarted = Date.now();
  let settled = false;
  let timer: NodeJS.Timeout | undefined;

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const at = phase;
    if (at === 'hang') return; // never read, never answered: the sender's timeout cuts it off
    if (at === 'reset') {
      req.socket.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: ReceivedRequest = { phase: at, body: Buffer.concat(chunks).toString('utf8'), headers: req.headers, acknowledged: false };
      received.push(request);
      if (at === 'ack-lost') {
        req.socket.destroy();
        return;
      }
      if (at === '500') {
        res.writeHead(500).end('flapping');
        return;
      }
      request.acknowledged = true;
      res.writeHead(204).end();
    });
  };

  let server!: Server;
  let port = 0;
  const open = () =>
    new Promise<void>((resolve, reject) => {
      server = createServer(handle);
      server.on('connection', (socket) => {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        port = (server.address() as AddressInfo).port;
        resolve();
      });
    });
  const shut = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });

  const enter = async (next: ReceiverPhase) => {
    const spent = phases.get(phase) ?? { count: 0, ms: 0 };
    phases.set(phase, { count: spent.count + 1, ms: spent.ms + (Date.now() - phaseStarted) });
    // Connections held by a hanging phase break when it ends.
    if (phase === 'hang') for (const socket of sockets) socket.destroy();
    if (next === 'closed') await shut();
    if (phase === 'closed') await open();
    phase = next;
    phaseStarted = Date.now();
  };

  const flap = async () => {
    if (settled) return;
    // Up and down alternate: each down phase is one of the ways down, at random.
    const next: ReceiverPhase = phase === 'up' ? DOWN_PHASES[Math.floor(random() * DOWN_PHASES.length)]! : 'up';
    await enter(next);
    timer = setTimeout(() => void flap(), between(next === 'up' ? options.upMs : options.downMs));
  };

  await open();
  timer = setTimeout(() => void flap(), between(options.upMs));
  return {
    get url() {
      return `http://127.0.0.1:${port}`;
    },
    received,
    phases,
    async settle() {
      settled = true;
      clearTimeout(timer);
      if (phase !== 'up') await enter('up');
    },
    async close() {
      settled = true;
      clearTimeout(timer);
      if (phase !== 'closed') await shut();
    },
  };
}
