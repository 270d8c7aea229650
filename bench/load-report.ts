import { duration, int, machineLines, megabytes, ms, percent, table } from './format';
import {
  BASELINE_MAX_SECONDS,
  type KindRun,
  type KindRunTotal,
  LOAD_REQUEST_TIMEOUT_SECONDS,
  type LoadBenchResult,
  RSS_GROWTH_LIMIT,
  RSS_REFERENCE_SECONDS,
  RSS_SAMPLE_SECONDS,
  RSS_WINDOW_SECONDS,
  type RssSample,
} from './load-bench';
import { LOAD_KIND_LABELS } from './load-workload';

/**
 * The load part's two sections, each between its markers so `npm run bench:load` can rewrite it
 * alone: runs of a minute or less (`npm run bench`'s load part) write the first, longer runs (the
 * memory stability check) the second, so a full bench run keeps the last long run's figures.
 */
export const LOAD_MARKERS = { start: '<!-- load section: npm run bench:load -->', end: '<!-- end of load section -->' } as const;
export const LOAD_LONG_MARKERS = {
  start: '<!-- load long-run section: npm run bench:load -- --duration 600 -->',
  end: '<!-- end of load long-run section -->',
} as const;

export type LoadSectionKind = 'short' | 'long';

export function loadSectionKindOf(durationSeconds: number): LoadSectionKind {
  return durationSeconds > RSS_REFERENCE_SECONDS ? 'long' : 'short';
}

export function loadMarkers(kind: LoadSectionKind): { start: string; end: string } {
  return kind === 'long' ? LOAD_LONG_MARKERS : LOAD_MARKERS;
}

const HEADINGS: Record<LoadSectionKind, string> = {
  short: '## Mixed load',
  long: '## Mixed load over a long run: memory stability',
};

const signedPercent = (ratio: number) => `${ratio >= 0 ? '+' : ''}${(ratio * 100).toFixed(1)}%`;

function errorsCell(k: Pick<KindRun, 'errors' | 'non2xx' | 'socketErrors' | 'timeouts' | 'degraded'>): string {
  if (k.errors === 0) return '0';
  const parts = [
    k.non2xx > 0 ? `${k.non2xx} non-2xx` : '',
    k.socketErrors > 0 ? `${k.socketErrors} socket (${k.timeouts} timeouts)` : '',
    k.degraded > 0 ? `${k.degraded} degraded` : '',
  ].filter(Boolean);
  return `**${k.errors}** (${parts.join(', ')})`;
}

function row(name: string, k: KindRunTotal, bare: KindRunTotal | undefined): string[] {
  return [
    name,
    String(k.connections),
    int(k.responses),
    ms(k.p50Ms),
    ms(k.p99Ms),
    k.requestsPerSecond < 100 ? k.requestsPerSecond.toFixed(1) : int(k.requestsPerSecond),
    errorsCell(k),
    bare ? int(bare.requestsPerSecond) : '-',
    bare ? percent(k.requestsPerSecond / bare.requestsPerSecond) : '-',
  ];
}

export function rssLine(result: Pick<LoadBenchResult, 'rss' | 'apiMemory' | 'durationSeconds'>): string {
  const { rss, apiMemory } = result;
  const first = rss.firstMinuteBytes === null ? 'n/a (shorter than a minute)' : `${megabytes(rss.firstMinuteBytes)} MB`;
  const verdict = rss.checked
    ? `growth **${signedPercent(rss.growth!)}** (limit +${RSS_GROWTH_LIMIT * 100}%): ${rss.pass ? 'pass' : '**FAIL**'}`
    : `growth not checked: the check needs a run longer than ${RSS_REFERENCE_SECONDS} s (\`--duration 600\`)`;
  return (
    `Server RSS: ${megabytes(apiMemory.idle.rssBytes)} MB before the run, ${first} at the end of the first minute, ` +
    `${megabytes(rss.endBytes)} MB at the end (${duration(result.durationSeconds)}); ${verdict}. Peak (VmHWM) ${megabytes(apiMemory.end.peakRssBytes)} MB; ` +
    `samples ${megabytes(Math.min(...rss.samples.map((s) => s.rssBytes)))}-${megabytes(Math.max(...rss.samples.map((s) => s.rssBytes)))} MB.`
  );
}

/** Min, median and max RSS (MB) of the samples taken in a minute of the run (1-based). */
function minuteRss(samples: readonly RssSample[], minute: number): string[] {
  const values = samples
    .filter((s) => s.seconds > (minute - 1) * 60 && s.seconds <= minute * 60)
    .map((s) => s.rssBytes)
    .sort((a, b) => a - b);
  if (values.length === 0) return ['-', '-', '-'];
  return [values[0]!, values[Math.floor(values.length / 2)]!, values[values.length - 1]!].map(megabytes);
}

/** The section for `result`'s length of run; with no result, the placeholder of `kind`. */
export function loadSection(result: LoadBenchResult | null, kind: LoadSectionKind = result ? loadSectionKindOf(result.durationSeconds) : 'short'): string {
  const markers = loadMarkers(kind);
  if (!result || loadSectionKindOf(result.durationSeconds) !== kind) {
    const how = kind === 'long' ? ' `npm run bench:load -- --duration 600` writes it.' : '';
    return `${markers.start}\n${HEADINGS[kind]}\n\nNot measured yet.${how}\n${markers.end}`;
  }
  const { machine } = result;
  const bareByKind = new Map(result.baseline.map((k) => [k.kind, k]));
  const rows = result.kinds.map((k) => row(k.kind, k, bareByKind.get(k.kind)));
  rows.push(row('**all**', result.total, result.baselineTotal));
  const perMinute =
    result.durationSeconds > RSS_REFERENCE_SECONDS
      ? [
          '',
          `Per minute: the server's RSS over the minute's samples (every ${RSS_SAMPLE_SECONDS} s), and req/s of every kind together:`,
          '',
          table(
            ['minute', 'RSS MB min', 'RSS MB median', 'RSS MB max', 'req/s'],
            result.perMinute.map((m) => [
              String(m.minute),
              ...minuteRss(result.rss.samples, m.minute),
              // The last minute may be partial (a duration that is not whole minutes) and holds autocannon's wrap-up.
              (m.responses / Math.max(1, Math.min(60, result.total.seconds - (m.minute - 1) * 60))).toFixed(1),
            ]),
          ),
        ]
      : [];
  const errorSamples = [...result.kinds, ...result.baseline].flatMap((k) => k.errorSamples.map((s) => `${k.kind}: ${s}`)).slice(0, 10);
  return [
    markers.start,
    HEADINGS[kind],
    '',
    ...(kind === 'long'
      ? [
          `The mixed load below for ${duration(result.durationSeconds)}, to see whether the server's memory settles: the RSS check compares the end of the`,
          `first minute with the end. (\`npm run bench\` writes the ${RSS_REFERENCE_SECONDS}-s run of the section above and keeps this one.)`,
          '',
        ]
      : []),
    `Every kind of request at once against one API server (\`bin/local.ts\` on \`bench/.data/grants-${result.grants}\`, ${int(result.grants)} grants,`,
    `${int(result.openGrants)} open), for ${duration(result.durationSeconds)}: each kind from its own autocannon instance with its share of the`,
    `${result.connections} connections (closed loop), so each kind has its own counts and latencies. Every request carries the local`,
    'developer key, whose tier has no daily quota (`lambdas/core/auth/tiers.ts`), so no request is refused for quota.',
    '',
    `Command: ${result.command} (machine and date at the end of this section).`,
    '',
    table(['kind', 'connections', 'requests', 'p50 ms', 'p99 ms', 'req/s', 'errors', 'bare node:http req/s', 'vs bare node:http'], rows),
    '',
    `**Errors: ${result.errors}** (API ${result.total.errors}, baseline ${result.baselineTotal.errors}); the run fails on any. ${result.pass ? 'Result: pass.' : 'Result: **FAIL**.'}`,
    ...(errorSamples.length > 0 ? ['', 'First errors:', '', ...errorSamples.map((s) => `- \`${s.replace(/`/g, "'")}\``)] : []),
    '',
    rssLine(result),
    ...perMinute,
    '',
    'What each kind sends (the generators are seeded, so a rerun sends the same sequence):',
    '',
    ...result.kinds.map((k) => `- **${k.kind}** (\`${LOAD_KIND_LABELS[k.kind]}\`): ${result.describe[k.kind]}.`),
    `- ${result.textsWithKeywordMatches} of the ${result.texts} search texts find grants by keyword (a keyword search needs every meaningful word; the`,
    `  rest answer an empty page, as they would for a user); ${result.matchProfilesWithMatches} of the ${result.matchProfiles} match profiles get matches.`,
    '',
    'How:',
    '',
    `- Before the load: ${int(result.idsSampled)} grant ids are read through the API, and five requests of every kind and every match profile`,
    '  must answer 200 (not degraded), or the run stops.',
    `- errors = non-2xx responses + socket errors (a request unanswered after ${LOAD_REQUEST_TIMEOUT_SECONDS} s is a timeout, counted here) + 200s`,
    '  marked `meta.degraded` (hybrid search answered from its keyword half). Requests in flight when the time is up are',
    '  neither counted nor errors.',
    '- p50 and p99 are per-response latencies seen by the client, over the whole run (its start included); req/s is responses',
    "  over the run's seconds. The kinds share one Node process, and in a closed loop every connection's next request waits",
    "  behind the others' work, so latencies are mostly that wait and come out alike across kinds: a cheap request waits behind",
    '  expensive ones (semantic, hybrid, match). get-by-id waits more than once: it reads the record store, which locally is',
    '  dynalite answering over HTTP inside the same process, so each get crosses the event loop several times (a few ms on an',
    '  idle server). In AWS the record store is DynamoDB and each kind is its own Lambda.',
    `- Same-run baseline: the bare \`node:http\` server (\`bench/baseline-server.ts\`, answering every request with the API's`,
    `  \`GET /grants-api?limit=20\`, ${int(result.baselineBytes)} bytes) under the same connections, request shapes and headers, for`,
    `  ${duration(result.baselineSeconds)} (as long as the run, up to ${BASELINE_MAX_SECONDS} s), just before the API's run; "vs bare node:http" is the`,
    `  kind's req/s over the bare server's for the same connections. Bare server RSS: ${megabytes(result.baselineRssBytes)} MB.`,
    `- RSS is the VmRSS of the API server process (\`/proc/<pid>/status\`), read every ${RSS_SAMPLE_SECONDS} s. "End of the first minute" is the`,
    `  median of the samples from ${RSS_REFERENCE_SECONDS - RSS_WINDOW_SECONDS} to ${RSS_REFERENCE_SECONDS} s, "end" the median of the samples in the run's last ${RSS_WINDOW_SECONDS} s: single samples swing`,
    "  with the garbage collector's sawtooth (see the range above). Runs longer than",
    `  ${RSS_REFERENCE_SECONDS} s must grow less than ${RSS_GROWTH_LIMIT * 100}% between the two, or the run fails. Every sample is kept in \`bench/.data/load-*.json\`.`,
    "- The load generator shares the machine's CPUs with the server.",
    '',
    ...machineLines(machine, result.seconds),
    markers.end,
  ].join('\n');
}
