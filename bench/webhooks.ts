import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { httpWebhookTransport } from '../lambdas/adapters/http-webhook-transport';
import type { Grant } from '../lambdas/core/records';
import { createKey } from '../lambdas/core/use-cases/manage-keys';
import { addSubscription } from '../lambdas/core/use-cases/manage-webhooks';
import { EVENT_ID_HEADER } from '../lambdas/core/webhooks/delivery-policy';
import type { WebhookTransport } from '../lambdas/ports/webhook-transport';
import { type EmbeddedStack, startEmbeddedStack } from '../local/embedded-stack';
import { DEFAULT_CATALOGUE, generateFunders, generateGrants } from '../local/synthetic-catalogue';
import { describeMachine, type MachineInfo } from './machine';
import type { BenchOptions } from './options';
import { median, percentile } from './summary';

/**
 * Webhook delivery on the embedded stack (`startEmbeddedStack({ webhooks })`, what `npm start`
 * runs): new grants written through the store become grant.created events, fanned out to the
 * active subscriptions and POSTed by the in-process queue (processDelivery, the node:http
 * transport) to a receiver on loopback in this process. Against a bare node:http loop that sends
 * the same POSTs (same paths, bodies and headers, one connection each) to the same receiver in the
 * same round: all at once, as the queue's (absent) concurrency limit allows, and one at a time, as
 * the queue in fact sends them.
 *
 * Two workloads per scenario and round:
 * - bulk: records written in the ingest's batches, the queue left to keep up; deliveries/s is
 *   every delivery over the time from the first write's start to the last arrival.
 * - one at a time: each record written alone on an otherwise idle stack, and its deliveries
 *   awaited before the next; latency is from the start of the record's write call to each
 *   delivery's arrival. Not from the call's return: locally the write call itself hands the events
 *   to the dispatcher and waits for the fan-out (outbox append, one delivery log entry per
 *   subscription), and the queue starts each POST as soon as its entry is logged, so with several
 *   subscriptions most deliveries arrive before the write call returns.
 */

/** What the ingest writes per store call (DEFAULT_BATCH_SIZE of lambdas/core/use-cases/ingest-records.ts). */
export const WEBHOOK_WRITE_BATCH = 200;
const WARMUP_BULK_DELIVERIES = 100;
const WARMUP_SINGLE_RECORDS = 3;
/** Every delivery of a run must arrive by then; a failed first attempt waits a minute for its retry. */
const ARRIVAL_TIMEOUT_MS = 120_000;
/** Before each round: how late an idle 10 ms timer fires in this process, the shared machine's own stalls. */
const IDLE_PROBE_MS = 3_000;
const IDLE_PROBE_RESOLUTION_MS = 10;
const EVENT = 'grant.created';

export interface WebhookScenarioSpec {
  subscriptions: number;
  /** Records written in bulk per round (in WEBHOOK_WRITE_BATCH batches). */
  bulkRecords: number;
  /** Records written one at a time per round, for the latency. */
  singleRecords: number;
}

/** Sizes keep a 3-round run near a minute and a half on 2 shared CPUs (about 60-100 deliveries/s). */
export const WEBHOOK_SCENARIOS: readonly WebhookScenarioSpec[] = [
  { subscriptions: 1, bulkRecords: 400, singleRecords: 100 },
  { subscriptions: 10, bulkRecords: 60, singleRecords: 20 },
];
/** The same writes with no subscription: what the store, index and outbox cost without webhooks. */
const WRITES_ALONE: WebhookScenarioSpec = { subscriptions: 0, bulkRecords: 400, singleRecords: 50 };

export interface WebhookRound {
  /** Bulk: deliveries (records, for no subscription) per second, first write start to last arrival. */
  deliveriesPerSecond: number;
  /** The same POSTs from a bare node:http loop, all started at once, per second, loop start to last arrival. */
  bareRequestsPerSecond: number;
  /** The same POSTs from a bare loop, each sent when the previous one was answered. */
  bareSequentialRequestsPerSecond: number;
  /** Most delivery attempts in flight at once during the bulk run. */
  peakInFlight: number;
  /** Each POST's own time as the transport measured it (bulk). */
  attemptMs: number[];
  /** One at a time: ms from the start of a record's write call to each of its deliveries' arrival. */
  latencyMs: number[];
  /** One at a time: ms each record's write call took. */
  writeCallMs: number[];
}

export interface WebhookScenarioResult extends WebhookScenarioSpec {
  rounds: WebhookRound[];
}

/** How late an idle timer fired, beyond its interval. */
export interface IdleStalls {
  p99Ms: number;
  maxMs: number;
}

export interface WebhookBenchResult {
  machine: MachineInfo;
  batchSize: number;
  warmedUp: boolean;
  scenarios: WebhookScenarioResult[];
  /** The same bulk and one-at-a-time writes with no subscription. */
  writesAlone: WebhookScenarioResult;
  /** One probe of the idle process per round, before the round's runs. */
  idleStalls: IdleStalls[];
  seconds: number;
}

interface Arrival {
  at: number;
  path: string;
  eventId: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A receiver that answers 204 at once and notes when each request's body had fully arrived
 * (performance.now() of this process, the clock the writes are timed with).
 */
class Receiver {
  private arrivals: Arrival[] = [];
  private waiter: { count: number; resolve: () => void } | null = null;

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(): Promise<Receiver> {
    let receiver: Receiver | undefined;
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const at = performance.now();
        res.writeHead(204).end();
        receiver!.arrived({
          at,
          path: req.url ?? '',
          eventId: String(req.headers[EVENT_ID_HEADER.toLowerCase()] ?? ''),
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
      });
    });
    // All of a bare run's connections arrive at once; the default backlog (511) would drop some.
    await new Promise<void>((resolve) => server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, resolve));
    receiver = new Receiver(server, (server.address() as AddressInfo).port);
    return receiver;
  }

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  private arrived(arrival: Arrival): void {
    this.arrivals.push(arrival);
    if (this.waiter && this.arrivals.length >= this.waiter.count) {
      const { resolve } = this.waiter;
      this.waiter = null;
      resolve();
    }
  }

  /** Starts a run: forgets earlier arrivals and resolves once `count` have arrived. */
  expect(count: number, what: string, diagnose: () => string): Promise<void> {
    this.arrivals = [];
    const arrived = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = null;
        reject(new Error(`${what}: ${this.arrivals.length} of ${count} deliveries arrived within ${ARRIVAL_TIMEOUT_MS / 1000} s; ${diagnose()}`));
      }, ARRIVAL_TIMEOUT_MS);
      timer.unref();
      this.waiter = {
        count,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
    });
    // A run that failed before awaiting this must not end the process later with an unhandled rejection.
    arrived.catch(() => undefined);
    return arrived;
  }

  take(): Arrival[] {
    const taken = this.arrivals;
    this.arrivals = [];
    return taken;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** One embedded stack with its subscriptions, each to its own receiver path. */
interface Rig {
  spec: WebhookScenarioSpec;
  stack: EmbeddedStack;
  dataDir: string;
  paths: string[];
  inFlight: { now: number; peak: number; attemptMs: number[] };
  grants: Grant[];
  next: number;
}

async function startRig(spec: WebhookScenarioSpec, receiver: Receiver, grants: Grant[]): Promise<Rig> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gcf-bench-webhooks-'));
  const inFlight = { now: 0, peak: 0, attemptMs: [] as number[] };
  // The production transport, counted: how many attempts the queue really has under way at once.
  const transport: WebhookTransport = {
    async send(attempt) {
      inFlight.now++;
      inFlight.peak = Math.max(inFlight.peak, inFlight.now);
      try {
        const result = await httpWebhookTransport.send(attempt);
        inFlight.attemptMs.push(result.latencyMs);
        return result;
      } finally {
        inFlight.now--;
      }
    },
  };
  try {
    // The production retry schedule and timeout; subscriptions exist before the first fan-out, so
    // the dispatcher's subscription cache (5 s) holds them from the start.
    const stack = await startEmbeddedStack({ dataDir, seed: false, webhooks: { transport } });
    const keyId = (await createKey(stack.services.keys, { tier: 'developer', owner: 'bench@example.org', label: 'webhooks bench' }, randomBytes, new Date()))
      .record.key_id;
    const paths: string[] = [];
    for (let i = 0; i < spec.subscriptions; i++) {
      const path = `/subs-${spec.subscriptions}/receiver-${i + 1}`;
      await addSubscription(
        { webhooks: stack.webhooks, keys: stack.services.keys, resolver: { resolve: async () => ['127.0.0.1'] } },
        { keyId, url: `${receiver.origin}${path}`, events: [EVENT] },
        'local',
        new Date(),
      );
      paths.push(path);
    }
    return { spec, stack, dataDir, paths, inFlight, grants, next: 0 };
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}

async function stopRig(rig: Rig): Promise<void> {
  try {
    await rig.stack.close();
  } finally {
    rmSync(rig.dataDir, { recursive: true, force: true });
  }
}

/** Grants this rig has not written yet: every run writes new records, so every write is a grant.created. */
function freshGrants(rig: Rig, count: number): Grant[] {
  const taken = rig.grants.slice(rig.next, rig.next + count);
  if (taken.length < count) throw new Error(`webhooks bench: generated too few grants (${rig.grants.length})`);
  rig.next += count;
  return taken;
}

function label(rig: Rig): string {
  return `${rig.spec.subscriptions} subscription${rig.spec.subscriptions === 1 ? '' : 's'}`;
}

function diagnose(rig: Rig): () => string {
  return () =>
    `dead-lettered ${rig.stack.webhookDispatcher!.queue.deadLetters.length}, queue holds ${rig.stack.webhookDispatcher!.queue.size} (a failed first attempt is retried after a minute)`;
}

/** Exactly one arrival per (record, subscription), each carrying the record: nothing lost, doubled or garbled. */
function checkArrivals(rig: Rig, grants: readonly Grant[], arrivals: readonly Arrival[]): void {
  const expected = new Set(grants.flatMap((grant) => rig.paths.map((path) => `${path} ${grant.id}`)));
  const seen = new Set<string>();
  for (const arrival of arrivals) {
    const body = JSON.parse(arrival.body) as { event: string; data: { id: string } };
    const key = `${arrival.path} ${body.data.id}`;
    if (body.event !== EVENT || !expected.has(key) || seen.has(key) || !arrival.eventId) {
      throw new Error(`${label(rig)}: unexpected delivery ${arrival.path} ${body.event} ${body.data.id} (event id "${arrival.eventId}")`);
    }
    seen.add(key);
  }
  if (seen.size !== expected.size) throw new Error(`${label(rig)}: ${seen.size} of ${expected.size} deliveries arrived`);
}

/** Records in ingest-sized batches; returns the deliveries per second and what arrived (for the bare loop). */
async function bulkRun(rig: Rig, receiver: Receiver, records: number): Promise<{ perSecond: number; arrivals: Arrival[] }> {
  const grants = freshGrants(rig, records);
  const deliveries = records * rig.spec.subscriptions;
  rig.inFlight.peak = 0;
  rig.inFlight.attemptMs = [];
  const arrived = deliveries > 0 ? receiver.expect(deliveries, `${label(rig)}, bulk`, diagnose(rig)) : Promise.resolve();
  const started = performance.now();
  for (let i = 0; i < grants.length; i += WEBHOOK_WRITE_BATCH) await rig.stack.services.store.put('grant', grants.slice(i, i + WEBHOOK_WRITE_BATCH));
  const written = performance.now();
  await arrived;
  // The last deliveries' log entries are still being saved; the next run starts on an idle stack.
  await rig.stack.webhookDispatcher!.settle();
  const arrivals = receiver.take();
  if (deliveries === 0) return { perSecond: records / ((written - started) / 1000), arrivals };
  checkArrivals(rig, grants, arrivals);
  const last = Math.max(...arrivals.map((a) => a.at));
  return { perSecond: deliveries / ((last - started) / 1000), arrivals };
}

/** Records written one at a time, each on an idle stack: write-start-to-arrival latencies and write call times. */
async function singleRun(rig: Rig, receiver: Receiver, records: number): Promise<{ latencyMs: number[]; writeCallMs: number[] }> {
  const latencyMs: number[] = [];
  const writeCallMs: number[] = [];
  for (const grant of freshGrants(rig, records)) {
    const arrived = rig.spec.subscriptions > 0 ? receiver.expect(rig.spec.subscriptions, `${label(rig)}, one at a time`, diagnose(rig)) : Promise.resolve();
    const started = performance.now();
    await rig.stack.services.store.put('grant', [grant]);
    writeCallMs.push(performance.now() - started);
    await arrived;
    await rig.stack.webhookDispatcher!.settle();
    const arrivals = receiver.take();
    if (rig.spec.subscriptions > 0) checkArrivals(rig, [grant], arrivals);
    for (const arrival of arrivals) latencyMs.push(arrival.at - started);
  }
  return { latencyMs, writeCallMs };
}

/** The headers the transport set (Node adds Host and Connection itself, the same way for both). */
function replayHeaders(headers: IncomingHttpHeaders, body: string): Record<string, string> {
  const replayed: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name === 'host' || name === 'connection' || name === 'content-length' || value === undefined) continue;
    replayed[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  replayed['content-length'] = String(Buffer.byteLength(body));
  return replayed;
}

function barePost(port: number, { path, body, headers }: { path: string; body: string; headers: Record<string, string> }): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'POST', headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 204 ? resolve() : reject(new Error(`bare loop: status ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * The bulk run's POSTs again, straight from a bare loop: same paths, bodies and headers, one
 * connection per request (the transport's agent: false). 'all': no limit on how many are under
 * way, as the in-process queue has none (every queued message starts when its 0 s timer fires);
 * 'sequential': one at a time, which is what the queue in fact reaches (see peakInFlight).
 */
async function bareRun(receiver: Receiver, requests: readonly Arrival[], concurrency: 'all' | 'sequential'): Promise<number> {
  const prepared = requests.map((r) => ({ path: r.path, body: r.body, headers: replayHeaders(r.headers, r.body) }));
  const arrived = receiver.expect(prepared.length, 'bare loop', () => 'the receiver missed requests');
  const started = performance.now();
  if (concurrency === 'all') await Promise.all(prepared.map((request) => barePost(receiver.port, request)));
  else for (const request of prepared) await barePost(receiver.port, request);
  await arrived;
  const arrivals = receiver.take();
  const last = Math.max(...arrivals.map((a) => a.at));
  return prepared.length / ((last - started) / 1000);
}

async function warmUp(rig: Rig, receiver: Receiver): Promise<void> {
  const records = rig.spec.subscriptions === 0 ? WARMUP_BULK_DELIVERIES : Math.ceil(WARMUP_BULK_DELIVERIES / rig.spec.subscriptions);
  const { arrivals } = await bulkRun(rig, receiver, records);
  if (arrivals.length > 0) {
    await bareRun(receiver, arrivals, 'all');
    await bareRun(receiver, arrivals, 'sequential');
  }
  await singleRun(rig, receiver, WARMUP_SINGLE_RECORDS);
}

async function oneRound(rig: Rig, receiver: Receiver): Promise<WebhookRound> {
  const bulk = await bulkRun(rig, receiver, rig.spec.bulkRecords);
  const peakInFlight = rig.inFlight.peak;
  const attemptMs = rig.inFlight.attemptMs;
  // Side by side: the same POSTs from the bare loop right after, under nearly the same background load.
  const bare = bulk.arrivals.length > 0;
  const bareRequestsPerSecond = bare ? await bareRun(receiver, bulk.arrivals, 'all') : Number.NaN;
  const bareSequentialRequestsPerSecond = bare ? await bareRun(receiver, bulk.arrivals, 'sequential') : Number.NaN;
  const single = await singleRun(rig, receiver, rig.spec.singleRecords);
  return { deliveriesPerSecond: bulk.perSecond, bareRequestsPerSecond, bareSequentialRequestsPerSecond, peakInFlight, attemptMs, ...single };
}

/**
 * Nothing else running: how late a 10 ms timer fires in this process. On a shared machine whose
 * CPUs are taken away now and then (steal), this is the stall any latency here can suffer.
 */
async function probeIdleStalls(): Promise<IdleStalls> {
  const histogram = monitorEventLoopDelay({ resolution: IDLE_PROBE_RESOLUTION_MS });
  histogram.enable();
  await new Promise((resolve) => setTimeout(resolve, IDLE_PROBE_MS));
  histogram.disable();
  const late = (ns: number) => Math.max(0, ns / 1e6 - IDLE_PROBE_RESOLUTION_MS);
  return { p99Ms: late(histogram.percentile(99)), maxMs: late(histogram.max) };
}

export async function benchWebhooks(
  options: BenchOptions,
  log: (line: string) => void,
  scenarios: readonly WebhookScenarioSpec[] = WEBHOOK_SCENARIOS,
  writesAlone: WebhookScenarioSpec = WRITES_ALONE,
): Promise<WebhookBenchResult> {
  const startedAt = performance.now();
  const machine = describeMachine();
  const specs = [writesAlone, ...scenarios];
  const warmedUp = options.warmupSeconds > 0;
  log(`\n== webhooks: ${scenarios.map((s) => `${s.subscriptions} subscription(s)`).join(', ')}; ${options.rounds} rounds ==`);

  // New grants for every write, the same list for every stack (each has its own store).
  const needed = Math.max(
    ...specs.map((s) => (warmedUp ? WARMUP_BULK_DELIVERIES + WARMUP_SINGLE_RECORDS : 0) + options.rounds * (s.bulkRecords + s.singleRecords)),
  );
  const catalogue = {
    ...DEFAULT_CATALOGUE,
    funders: 50,
    grants: needed,
    awardedGrants: 0,
    contracts: 0,
    awardedContracts: 0,
    today: new Date().toISOString().slice(0, 10),
  };
  const grants = [...generateGrants(catalogue, generateFunders(catalogue))].flat();

  const receiver = await Receiver.start();
  const rigs: Rig[] = [];
  try {
    for (const spec of specs) rigs.push(await startRig(spec, receiver, grants));
    if (warmedUp) {
      for (const rig of rigs) await warmUp(rig, receiver);
      log('  warmed up (one bulk run, its bare loop and a few single writes per stack, unrecorded)');
    }
    const rounds = new Map<Rig, WebhookRound[]>(rigs.map((rig) => [rig, []]));
    const idleStalls: IdleStalls[] = [];
    for (let i = 1; i <= options.rounds; i++) {
      const idle = await probeIdleStalls();
      idleStalls.push(idle);
      log(`  round ${i}/${options.rounds} idle process: a 10 ms timer fired up to ${idle.maxMs.toFixed(0)} ms late (p99 ${idle.p99Ms.toFixed(0)} ms)`);
      for (const rig of rigs) {
        const round = await oneRound(rig, receiver);
        rounds.get(rig)!.push(round);
        const unit = rig.spec.subscriptions === 0 ? 'records/s' : 'deliveries/s';
        log(
          `  round ${i}/${options.rounds} ${label(rig).padEnd(16)} ${round.deliveriesPerSecond.toFixed(1).padStart(6)} ${unit}` +
            (rig.spec.subscriptions === 0
              ? `  single write call p50 ${percentile(round.writeCallMs, 0.5).toFixed(1)} ms`
              : `  bare ${round.bareRequestsPerSecond.toFixed(0)} POSTs/s (one at a time ${round.bareSequentialRequestsPerSecond.toFixed(0)})  peak in flight ${round.peakInFlight}` +
                `  write->delivery p50 ${percentile(round.latencyMs, 0.5).toFixed(1)} ms p99 ${percentile(round.latencyMs, 0.99).toFixed(1)} ms`),
        );
      }
    }
    const resultOf = (rig: Rig): WebhookScenarioResult => ({ ...rig.spec, rounds: rounds.get(rig)! });
    return {
      machine,
      batchSize: WEBHOOK_WRITE_BATCH,
      warmedUp,
      scenarios: rigs.slice(1).map(resultOf),
      writesAlone: resultOf(rigs[0]!),
      idleStalls,
      seconds: (performance.now() - startedAt) / 1000,
    };
  } finally {
    for (const rig of rigs) await stopRig(rig).catch((error) => log(`  closing a webhooks stack failed: ${(error as Error).message}`));
    await receiver.close();
  }
}

/** Medians across rounds of each round's figure, as the report shows them. */
export function summariseWebhookScenario(scenario: WebhookScenarioResult) {
  const { rounds } = scenario;
  return {
    deliveriesPerSecond: median(rounds.map((r) => r.deliveriesPerSecond)),
    bareRequestsPerSecond: median(rounds.map((r) => r.bareRequestsPerSecond)),
    bareSequentialRequestsPerSecond: median(rounds.map((r) => r.bareSequentialRequestsPerSecond)),
    ratioToBare: median(rounds.map((r) => r.deliveriesPerSecond / r.bareRequestsPerSecond)),
    peakInFlight: Math.max(...rounds.map((r) => r.peakInFlight)),
    attemptP50Ms: median(rounds.map((r) => percentile(r.attemptMs, 0.5))),
    p50Ms: median(rounds.map((r) => percentile(r.latencyMs, 0.5))),
    p99Ms: median(rounds.map((r) => percentile(r.latencyMs, 0.99))),
    writeCallP50Ms: median(rounds.map((r) => percentile(r.writeCallMs, 0.5))),
    deliveriesPerSecondByRound: rounds.map((r) => r.deliveriesPerSecond),
    p99MsByRound: rounds.map((r) => percentile(r.latencyMs, 0.99)),
    latencySamples: rounds.reduce((sum, r) => sum + r.latencyMs.length, 0),
  };
}
