import autocannon from 'autocannon';
import { todayUtc } from './bench-catalogue';
import { type ProcessMemory, readProcessMemory } from './child-processes';
import { megabytes } from './format';
import {
  countTextsWithKeywordMatches,
  LOAD_KINDS,
  type LoadKind,
  type LoadRequest,
  matchBodies,
  sampleGrantIds,
  searchTexts,
  splitConnections,
  workload,
} from './load-workload';
import { describeMachine, type MachineInfo } from './machine';
import { BASELINE_PAGE_PATH, type BenchHeaders, countGrants, probe } from './scenarios';
import { benchAuthorization, type FirstStart, type RunningServer, startApiServer, startBaselineServer } from './server-process';
import { median, percentile } from './summary';

/**
 * The load part (`npm run bench:load`, and `npm run bench`'s load part): one API server under a
 * mixed workload for a fixed time, every kind of request at once, each kind from its own
 * autocannon instance with its share of the connections. Counted per kind: responses by status,
 * socket errors and timeouts, answers degraded to keyword search; latencies per response. The
 * server's RSS is read every few seconds. The same-run baseline is the bare node:http server under
 * the same connections, request shapes and headers.
 */

/** How often the server's RSS is read during the run. */
export const RSS_SAMPLE_SECONDS = 5;
/**
 * The growth check compares the medians of the samples in the last 30 s of the first minute and
 * in the last 30 s of the run (7 samples each): the garbage collector's sawtooth moves single
 * samples by about 15% at 100,000 grants.
 */
export const RSS_WINDOW_SECONDS = 30;
/** Runs longer than this are held to the growth limit (the first minute is the reference). */
export const RSS_REFERENCE_SECONDS = 60;
export const RSS_GROWTH_LIMIT = 0.1;
/** The baseline's run: as long as the API's, up to this. */
export const BASELINE_MAX_SECONDS = 30;
/** A request unanswered after this counts as a timeout, which is an error. */
export const LOAD_REQUEST_TIMEOUT_SECONDS = 10;
const OVERRUN_ALLOWANCE_MS = 60_000;
const ERROR_SAMPLES_KEPT = 5;

export interface LoadBenchOptions {
  grants: number;
  durationSeconds: number;
  connections: number;
  /** The command that ran this, for the report (markdown, e.g. in backticks). */
  command: string;
}

/** What one autocannon instance (one kind) saw. */
export interface KindRun {
  kind: LoadKind;
  connections: number;
  responses: number;
  /** Seconds autocannon ran. */
  seconds: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  statusCounts: Record<string, number>;
  non2xx: number;
  /** Socket errors, timeouts included. */
  socketErrors: number;
  timeouts: number;
  /** 200s that said meta.degraded (hybrid answered from its keyword half). */
  degraded: number;
  /** non2xx + socket errors + degraded. */
  errors: number;
  errorSamples: string[];
}

export interface RssSample {
  /** Seconds since the load started (nominal: the sample's slot; the last one is the actual end). */
  seconds: number;
  rssBytes: number;
}

export interface RssFindings {
  samples: RssSample[];
  /** Median of the samples in the last 30 s of the first minute; null when the run was shorter. */
  firstMinuteBytes: number | null;
  /** Median of the samples in the last 30 s of the run. */
  endBytes: number;
  /** end / first minute - 1; null when the run was not longer than a minute. */
  growth: number | null;
  /** Whether the run was long enough to be held to the limit, and whether it met it. */
  checked: boolean;
  pass: boolean;
}

export interface LoadBenchResult {
  grants: number;
  openGrants: number;
  durationSeconds: number;
  connections: number;
  command: string;
  machine: MachineInfo;
  firstStart: FirstStart;
  describe: Record<LoadKind, string>;
  idsSampled: number;
  texts: number;
  textsWithKeywordMatches: number;
  matchProfiles: number;
  matchProfilesWithMatches: number;
  baselineBytes: number;
  baselineSeconds: number;
  kinds: KindRun[];
  total: KindRunTotal;
  baseline: KindRun[];
  baselineTotal: KindRunTotal;
  /** Responses of every kind in each minute of the run (1-based). */
  perMinute: { minute: number; responses: number }[];
  rss: RssFindings;
  apiMemory: { idle: ProcessMemory; end: ProcessMemory };
  baselineRssBytes: number;
  /** API errors plus baseline errors. */
  errors: number;
  /** Zero errors, and RSS growth under the limit where checked. */
  pass: boolean;
  seconds: number;
}

export type KindRunTotal = Omit<KindRun, 'kind' | 'errorSamples' | 'statusCounts'>;

/** The growth check: medians of the samples up to the end of the first minute and of the last ones. */
export function rssFindings(samples: RssSample[], durationSeconds: number): RssFindings {
  if (samples.length === 0) throw new Error('no RSS samples');
  const last = samples[samples.length - 1]!.seconds;
  const endBytes = median(samples.filter((s) => s.seconds >= last - RSS_WINDOW_SECONDS).map((s) => s.rssBytes));
  const firstMinute = samples.filter((s) => s.seconds >= RSS_REFERENCE_SECONDS - RSS_WINDOW_SECONDS && s.seconds <= RSS_REFERENCE_SECONDS);
  const firstMinuteBytes = durationSeconds >= RSS_REFERENCE_SECONDS && firstMinute.length > 0 ? median(firstMinute.map((s) => s.rssBytes)) : null;
  const checked = durationSeconds > RSS_REFERENCE_SECONDS && firstMinuteBytes !== null;
  const growth = checked ? endBytes / firstMinuteBytes! - 1 : null;
  return { samples, firstMinuteBytes, endBytes, growth, checked, pass: !checked || growth! < RSS_GROWTH_LIMIT };
}

interface KindRecorder {
  latencies: number[];
  statusCounts: Record<string, number>;
  degraded: number;
  socketErrors: number;
  errorSamples: string[];
}

interface MixedRun {
  kinds: KindRun[];
  total: KindRunTotal;
  /** Responses of all kinds per minute since the start. */
  perMinute: number[];
  rssSamples: RssSample[];
}

/**
 * Every kind at once, each from its own autocannon instance, for `durationSeconds`. When `rssPid`
 * is given, that process's RSS is read at the start, every RSS_SAMPLE_SECONDS, and at the end.
 */
async function runMixed(
  url: string,
  connections: Record<LoadKind, number>,
  next: Record<LoadKind, () => LoadRequest>,
  durationSeconds: number,
  headers: BenchHeaders,
  rssPid: number | null,
): Promise<MixedRun> {
  const basePath = new URL(url).pathname;
  const perMinute: number[] = [];
  const rssSamples: RssSample[] = [];
  const startedAt = performance.now();
  const sampleRss = (seconds: number) => {
    if (rssPid === null) return;
    try {
      rssSamples.push({ seconds, rssBytes: readProcessMemory(rssPid).rssBytes });
    } catch {
      // The server is gone; its requests fail and say so.
    }
  };
  sampleRss(0);
  let slot = 0;
  const sampler = setInterval(() => sampleRss(++slot * RSS_SAMPLE_SECONDS), RSS_SAMPLE_SECONDS * 1000);

  const runs = LOAD_KINDS.map((kind) => {
    const recorder: KindRecorder = { latencies: [], statusCounts: {}, degraded: 0, socketErrors: 0, errorSamples: [] };
    const remember = (text: string) => {
      if (recorder.errorSamples.length < ERROR_SAMPLES_KEPT) recorder.errorSamples.push(text);
    };
    const instance = autocannon({
      url,
      connections: connections[kind],
      duration: durationSeconds,
      timeout: LOAD_REQUEST_TIMEOUT_SECONDS,
      headers,
      requests: [
        {
          setupRequest: (request, context) => {
            const { method, path, body } = next[kind]();
            context.request = `${method} ${path}`;
            return body === undefined
              ? { ...request, method, path: basePath + path }
              : { ...request, method, path: basePath + path, body, headers: { ...request.headers, 'Content-Type': 'application/json' } };
          },
          onResponse: (status, body, context) => {
            recorder.statusCounts[status] = (recorder.statusCounts[status] ?? 0) + 1;
            if (status < 200 || status > 299) remember(`${status} ${String(context.request)}: ${body.slice(0, 300)}`);
            else if (kind !== 'get' && kind !== 'match' && body.includes('"degraded":true')) {
              recorder.degraded++;
              remember(`degraded 200 ${String(context.request)}`);
            }
          },
        },
      ],
    });
    instance.on('response', (_client, _status, _bytes, responseTimeMs) => {
      recorder.latencies.push(responseTimeMs);
      // Responses in autocannon's wrap-up after the nominal end count in the last minute.
      const minute = Math.min(Math.floor((performance.now() - startedAt) / 60_000), Math.ceil(durationSeconds / 60) - 1);
      perMinute[minute] = (perMinute[minute] ?? 0) + 1;
    });
    instance.on('reqError', (error) => {
      recorder.socketErrors++;
      remember(`socket error: ${error instanceof Error ? error.message : String(error)}`);
    });
    return { kind, instance, recorder };
  });

  let guard: NodeJS.Timeout | undefined;
  const overrun = new Promise<never>((_resolve, reject) => {
    guard = setTimeout(
      () => {
        for (const { instance } of runs) instance.stop();
        reject(new Error(`${url}: load run did not finish within ${durationSeconds} s + ${OVERRUN_ALLOWANCE_MS / 1000} s`));
      },
      durationSeconds * 1000 + OVERRUN_ALLOWANCE_MS,
    );
  });
  try {
    const results = await Promise.race([Promise.all(runs.map(({ instance }) => Promise.resolve(instance))), overrun]);
    clearInterval(sampler);
    sampleRss((performance.now() - startedAt) / 1000);
    const kinds = runs.map(({ kind, recorder }, i): KindRun => {
      const result = results[i]!;
      const latencies = recorder.latencies;
      const non2xx = Object.entries(recorder.statusCounts)
        .filter(([status]) => !status.startsWith('2'))
        .reduce((sum, [, n]) => sum + n, 0);
      // autocannon counts the same errors; the larger count wins, should they ever differ.
      const socketErrors = Math.max(recorder.socketErrors, result.errors);
      return {
        kind,
        connections: connections[kind],
        responses: latencies.length,
        seconds: result.duration,
        requestsPerSecond: latencies.length / result.duration,
        p50Ms: percentile(latencies, 0.5),
        p99Ms: percentile(latencies, 0.99),
        maxMs: latencies.length > 0 ? latencies.reduce((max, ms) => Math.max(max, ms)) : Number.NaN,
        statusCounts: recorder.statusCounts,
        non2xx: Math.max(non2xx, result.non2xx),
        socketErrors,
        timeouts: result.timeouts,
        degraded: recorder.degraded,
        errors: Math.max(non2xx, result.non2xx) + socketErrors + recorder.degraded,
        errorSamples: recorder.errorSamples,
      };
    });
    const all = runs.flatMap(({ recorder }) => recorder.latencies);
    return { kinds, total: totalOf(kinds, all), perMinute: Array.from(perMinute, (n) => n ?? 0), rssSamples };
  } finally {
    clearTimeout(guard);
    clearInterval(sampler);
  }
}

/** All kinds together; p50 and p99 over every response of the run. */
function totalOf(kinds: KindRun[], allLatencies: number[]): KindRunTotal {
  const sum = (pick: (k: KindRun) => number) => kinds.reduce((acc, k) => acc + pick(k), 0);
  const seconds = Math.max(...kinds.map((k) => k.seconds));
  return {
    connections: sum((k) => k.connections),
    responses: sum((k) => k.responses),
    seconds,
    requestsPerSecond: sum((k) => k.requestsPerSecond),
    p50Ms: percentile(allLatencies, 0.5),
    p99Ms: percentile(allLatencies, 0.99),
    maxMs: Math.max(...kinds.map((k) => k.maxMs)),
    non2xx: sum((k) => k.non2xx),
    socketErrors: sum((k) => k.socketErrors),
    timeouts: sum((k) => k.timeouts),
    degraded: sum((k) => k.degraded),
    errors: sum((k) => k.errors),
  };
}

async function send(baseUrl: string, request: LoadRequest, headers: BenchHeaders): Promise<{ status: number; text: string }> {
  const response = await fetch(`${baseUrl}${request.path}`, {
    method: request.method,
    headers: request.body === undefined ? headers : { ...headers, 'Content-Type': 'application/json' },
    body: request.body,
    signal: AbortSignal.timeout(60_000),
  });
  return { status: response.status, text: await response.text() };
}

const PROBES_PER_KIND = 5;

/** Start the server, read ids, probe every kind, the baseline run, then the measured run. */
export async function benchLoad(options: LoadBenchOptions, log: (line: string) => void): Promise<LoadBenchResult> {
  const startedAt = performance.now();
  const machine = describeMachine();
  const { grants, durationSeconds } = options;
  const connections = splitConnections(options.connections);
  log(
    `\n== load, ${grants} grants, ${durationSeconds} s, ${options.connections} connections (${LOAD_KINDS.map((k) => `${k} ${connections[k]}`).join(', ')}) ==`,
  );
  const { server: api, firstStart } = await startApiServer(grants, { log });
  let baseline: RunningServer | undefined;
  try {
    const headers = { Authorization: benchAuthorization(grants) };
    const today = todayUtc();
    const ids = await sampleGrantIds(api.baseUrl, headers);
    const texts = searchTexts();
    const bodies = matchBodies();
    const textsWithKeywordMatches = await countTextsWithKeywordMatches(api.baseUrl, texts, headers);
    log(`  ${ids.length} grant ids read; ${textsWithKeywordMatches} of ${texts.length} search texts find grants by keyword`);

    // Every kind must answer 200 before any load: a fast error page must never pass for throughput.
    const probes = workload(today, ids, texts, bodies, 2);
    for (const kind of LOAD_KINDS) {
      for (let i = 0; i < PROBES_PER_KIND; i++) {
        const request = probes.next[kind]();
        const { status, text } = await send(api.baseUrl, request, headers);
        if (status !== 200) throw new Error(`probe ${kind}: ${request.method} ${request.path}: status ${status}: ${text.slice(0, 500)}`);
        if (text.includes('"degraded":true')) throw new Error(`probe ${kind}: ${request.path}: degraded answer (is the embedding model loaded?)`);
      }
    }
    let matchProfilesWithMatches = 0;
    for (const body of bodies) {
      const { status, text } = await send(api.baseUrl, { method: 'POST', path: '/match-grants-api', body: JSON.stringify(body) }, headers);
      if (status !== 200) throw new Error(`probe match: ${JSON.stringify(body).slice(0, 200)}: status ${status}: ${text.slice(0, 500)}`);
      if ((JSON.parse(text) as { count: number }).count > 0) matchProfilesWithMatches++;
    }
    log(`  probes answered 200; ${matchProfilesWithMatches} of ${bodies.length} match profiles get matches`);
    const openGrants = await countGrants(api.baseUrl, '', headers);

    const page = await probe(`${api.baseUrl}${BASELINE_PAGE_PATH}`, headers);
    if (page.status !== 200) throw new Error(`${BASELINE_PAGE_PATH}: status ${page.status}`);
    baseline = await startBaselineServer(page.body, page.contentType);
    const baselineSeconds = Math.min(durationSeconds, BASELINE_MAX_SECONDS);
    const basePath = new URL(api.baseUrl).pathname;
    log(`  baseline pid ${baseline.child.pid}: the same mix for ${baselineSeconds} s`);
    const baselineRun = await runMixed(
      `${baseline.baseUrl}${basePath}`,
      connections,
      workload(today, ids, texts, bodies, 3).next,
      baselineSeconds,
      headers,
      null,
    );
    const baselineRssBytes = readProcessMemory(baseline.child.pid).rssBytes;
    await baseline.child.stop();
    baseline = undefined;
    for (const k of baselineRun.kinds) log(`  baseline ${k.kind.padEnd(8)} ${k.requestsPerSecond.toFixed(0).padStart(6)} req/s  errors ${k.errors}`);

    const idle = readProcessMemory(api.child.pid);
    log(`  API server pid ${api.child.pid}, RSS ${megabytes(idle.rssBytes)} MB before the run; running ${durationSeconds} s`);
    const runStart = performance.now();
    const progress = setInterval(() => {
      try {
        log(`  ... ${((performance.now() - runStart) / 1000).toFixed(0)} s, server RSS ${megabytes(readProcessMemory(api.child.pid).rssBytes)} MB`);
      } catch {
        // reported by the run
      }
    }, 60_000);
    let run: MixedRun;
    try {
      run = await runMixed(api.baseUrl, connections, workload(today, ids, texts, bodies, 1).next, durationSeconds, headers, api.child.pid);
    } catch (error) {
      throw new Error(`${(error as Error).message}\n--- ${api.child.label} output (tail) ---\n${api.child.output().slice(-3000)}`);
    } finally {
      clearInterval(progress);
    }
    const end = readProcessMemory(api.child.pid);
    for (const k of run.kinds) {
      log(
        `  ${k.kind.padEnd(8)} ${String(k.responses).padStart(7)} responses ${k.requestsPerSecond.toFixed(1).padStart(7)} req/s` +
          `  p50 ${k.p50Ms.toFixed(2)} ms  p99 ${k.p99Ms.toFixed(2)} ms  errors ${k.errors}${k.errorSamples.length > 0 ? `\n    ${k.errorSamples.join('\n    ')}` : ''}`,
      );
    }

    const rss = rssFindings(run.rssSamples, durationSeconds);
    const { total } = run;
    const baselineTotal = baselineRun.total;
    const errors = total.errors + baselineTotal.errors;
    return {
      grants,
      openGrants,
      durationSeconds,
      connections: options.connections,
      command: options.command,
      machine,
      firstStart,
      describe: probes.describe,
      idsSampled: ids.length,
      texts: texts.length,
      textsWithKeywordMatches,
      matchProfiles: bodies.length,
      matchProfilesWithMatches,
      baselineBytes: page.body.length,
      baselineSeconds,
      kinds: run.kinds,
      total,
      baseline: baselineRun.kinds,
      baselineTotal,
      perMinute: run.perMinute.map((responses, minute) => ({ minute: minute + 1, responses })),
      rss,
      apiMemory: { idle, end },
      baselineRssBytes,
      errors,
      pass: errors === 0 && rss.pass,
      seconds: (performance.now() - startedAt) / 1000,
    };
  } finally {
    await baseline?.child.stop();
    await api.child.stop();
  }
}
