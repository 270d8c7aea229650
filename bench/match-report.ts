import { MATCH_SCORING } from '../lambdas/core/matching/scoring-config';
import { duration, int, machineLines, megabytes, ms, percent, table } from './format';
import { DISTINCT_MISSION_SUFFIX, MATCH_PROFILES, type MatchBenchResult } from './match';

/** The "Grant matching latency" section of docs/benchmarks.md (`npm run bench -- --parts match`). */

export const MATCH_MARKERS = { start: '<!-- match section: npm run bench -- --parts match -->', end: '<!-- end of match section -->' } as const;
/** Written by `npm run eval:match`; every bench run keeps it. */
export const MATCH_QUALITY_MARKERS = { start: '<!-- match quality section: npm run eval:match -->', end: '<!-- end of match quality section -->' } as const;

export function matchSection(match: MatchBenchResult | null): string {
  const heading = '## Grant matching latency';
  if (!match) return `${MATCH_MARKERS.start}\n${heading}\n\nNot measured in this run.\n${MATCH_MARKERS.end}`;
  const { machine } = match;
  const rows = match.summaries.map((s) => [
    s.scenario.name === 'baseline' ? 'baseline (bare node:http)' : s.scenario.name,
    s.requestsPerSecond < 100 ? s.requestsPerSecond.toFixed(1) : int(s.requestsPerSecond),
    ms(s.p50Ms),
    ms(s.p99Ms),
    s.ratioToBaseline === null ? '100%' : percent(s.ratioToBaseline),
    megabytes(s.rssBytes),
    s.requestsPerSecondByRound.map((r) => (r < 100 ? r.toFixed(1) : int(r))).join(' / '),
    s.p99MsByRound.map((p) => (p < 100 ? ms(p) : int(p))).join(' / '),
  ]);
  const profileRows = match.profiles.map((p, i) => [
    String(i + 1),
    p.sector ?? '',
    p.applicantType ?? '',
    p.geography ?? '',
    int(p.candidates),
    int(p.count),
    int(p.responseBytes),
  ]);
  const sameMatches = match.profiles.filter((p) => p.distinctSameMatches).length;
  const serverMs = (name: string) => {
    const summary = match.summaries.find((s) => s.scenario.name === name);
    return summary ? ms(1000 / summary.requestsPerSecond) : '?';
  };
  const rebuild = match.firstStart.indexRebuildSeconds;
  const profiles = MATCH_PROFILES.length;
  const suffixNote =
    sameMatches === match.profiles.length
      ? [
          `  The suffix is a bare number, which changes neither the embedding nor the answer (all ${sameMatches} profiles return`,
          "  the same matches with it as without), so the work is the repeated profile's with the cache taken away.",
        ]
      : [
          `  The suffix is meant to change only the cache key, but ${match.profiles.length - sameMatches} of ${match.profiles.length} profiles return different`,
          '  matches with it than without.',
        ];
  return [
    MATCH_MARKERS.start,
    heading,
    '',
    `\`POST /functions/v1/match-grants-api\` on the ${int(match.grants)}-grant synthetic catalogue (${int(match.openGrants)} open grants), against a`,
    'bare `node:http` server in the same run that answers every request with the bytes of one real match response',
    `(profile 1's, ${int(match.baselineBytes)} bytes). A match embeds the profile's text (wink word vectors), runs the exact k-NN over`,
    "every open grant with the eligibility filters (open, the applicant's type and state, 501(c)(3) status) applied inside",
    `the scan, reads the ${MATCH_SCORING.candidateWindow} nearest, scores and explains them, and returns the best ${MATCH_PROFILES[0]!.limit ?? 10}.`,
    '',
    `- **match**: ${profiles} profiles written for the catalogue's topics (table below), sent in rotation, the same ${profiles}`,
    "  bodies over and over. The index caches one ranking per distinct query text, so after a profile's first request",
    `  the k-NN comes from memory; reading, scoring and explaining the ${MATCH_SCORING.candidateWindow} candidates is not cached.`,
    `- **match-distinct**: the same profiles with "${DISTINCT_MISSION_SUFFIX('<n>')}" appended to every request's mission, n counting up,`,
    '  so no cached ranking can answer it and every request pays the full scan, its filter mask (one pass over the',
    '  in-memory filter columns) and the ranking.',
    ...suffixNote,
    '- **match-distinct-1**: match-distinct with one connection, so no request waits behind another: the latency one',
    '  caller sees; the rows above it show what waiting behind other requests adds under load.',
    '- **baseline**: the same POSTs and headers (the developer key) to the bare server, which ignores them.',
    '',
    `How: ${match.connections} connections (match-distinct-1: one), closed loop, fewer than the api part's. One Node process serves the API, so in a closed`,
    'loop every further connection only waits in its queue, and the p99 would mostly measure that queue. Even at',
    `${match.connections}, a request may wait behind ${match.connections - 1} others (the mean latency is ${match.connections} / req/s, Little's law); the server's own`,
    `time per request is about 1 / req/s: ${serverMs('match')} ms for match, ${serverMs('match-distinct')} ms for match-distinct. ${match.rounds} rounds of ${match.durationSeconds} s,`,
    `interleaved (baseline, match, match-distinct, match-distinct-1), after ${match.warmupSeconds} s of unrecorded warm-up per scenario. req/s, p50 and p99`,
    'are medians across rounds; "vs bare node:http" is the median over rounds of req/s divided by the baseline\'s req/s',
    'in the same round. RSS is the VmRSS of the serving process right after a run, highest over rounds. The load',
    'generator shares the CPUs with the servers.',
    '',
    table(['scenario', 'req/s', 'p50 ms', 'p99 ms', 'vs bare node:http', 'RSS MB', 'req/s per round', 'p99 ms per round'], rows),
    '',
    table(['profile', 'sector', 'applicant type', 'geography', 'candidates', 'matches', 'response bytes'], profileRows),
    '',
    `API server memory: ${megabytes(match.apiMemory.idle.rssBytes)} MB idle after start, ${megabytes(match.apiMemory.afterRuns.rssBytes)} MB after the runs, ` +
      `peak ${megabytes(match.apiMemory.afterRuns.peakRssBytes)} MB (VmHWM). Baseline server: ${megabytes(match.baselineMemory.rssBytes)} MB.` +
      (rebuild === null ? '' : ` The search index was rebuilt at this part's first start (${duration(rebuild)} to ready), then the server restarted.`),
    '',
    ...machineLines(machine, match.seconds),
    MATCH_MARKERS.end,
  ].join('\n');
}
