import { type ProcessMemory, readProcessMemory } from './child-processes';
import { megabytes } from './format';
import { describeMachine, type MachineInfo } from './machine';
import { type JsonRequest, measure } from './measure';
import type { BenchOptions } from './options';
import { type BenchHeaders, countGrants, type ProbedResponse } from './scenarios';
import { benchAuthorization, type FirstStart, type RunningServer, startApiServer, startBaselineServer } from './server-process';
import { type ScenarioSummary, type Round as SummaryRound, summarise } from './summary';

/**
 * POST /match-grants-api at the biggest catalogue size, against a bare node:http server that
 * answers with the bytes of one real match response, in the same run. Each request embeds the
 * profile, runs the exact k-NN over every open grant (eligibility filters inside the scan), then
 * reads, scores and explains the nearest candidates.
 */

/**
 * Fewer than the api part's connections: a match costs tens to hundreds of milliseconds of one
 * Node process's time, and in a closed loop every extra connection only waits in its queue, so at
 * 10 connections the p99 would mostly measure the queue. 4 still keeps the server busy while
 * a response is on its way back.
 */
export const MATCH_CONNECTIONS = 4;
const MATCH_PATH = '/match-grants-api';

interface MatchProfileBody {
  profile: {
    mission: string;
    sector?: string;
    geography?: string;
    applicant_type?: string;
    is_501c3?: boolean;
    annual_budget_usd?: number;
  };
  focus_keywords?: string[];
  limit?: number;
}

/**
 * Profiles an applicant might send, written for the synthetic catalogue's topics (local/
 * synthetic-catalogue.ts): a mix of applicant types and places, some with a budget and focus
 * keywords, one nonprofit without 501(c)(3) status, one national applicant.
 */
export const MATCH_PROFILES: readonly MatchProfileBody[] = [
  {
    profile: {
      mission: 'We run mobile health clinics and train community health workers to prevent diabetes and heart disease in rural Appalachian Ohio.',
      sector: 'community health',
      geography: 'Ohio',
      applicant_type: 'nonprofit',
      is_501c3: true,
      annual_budget_usd: 850_000,
    },
    focus_keywords: ['community health workers', 'chronic disease'],
    limit: 10,
  },
  {
    profile: {
      mission: 'Our college of education partners with Austin school districts to recruit, train and retain STEM teachers for high-poverty schools.',
      sector: 'K-12 education',
      geography: 'Austin, TX',
      applicant_type: 'academic',
    },
    focus_keywords: ['teacher residency', 'STEM'],
    limit: 10,
  },
  {
    profile: {
      mission: 'The city is replacing diesel buses with zero-emission transit buses and building safe sidewalks and bike lanes near schools.',
      sector: 'transportation',
      geography: 'Denver, CO',
      applicant_type: 'municipality',
    },
    limit: 10,
  },
  {
    profile: {
      mission: 'Our tribal police department wants to hire officers, equip first responders and improve emergency response times on the reservation.',
      sector: 'public safety',
      geography: 'Arizona',
      applicant_type: 'tribal',
      annual_budget_usd: 2_000_000,
    },
    limit: 10,
  },
  {
    profile: {
      mission: 'Volunteers restore watersheds, wetlands and native habitat along Oregon rivers and monitor water quality with local schools.',
      sector: 'environment',
      geography: 'Oregon',
      applicant_type: 'nonprofit',
      is_501c3: true,
      annual_budget_usd: 300_000,
    },
    focus_keywords: ['habitat restoration', 'watershed'],
    limit: 10,
  },
  {
    profile: {
      mission: 'I am an independent artist creating public murals and community arts workshops with young people in the Bronx.',
      sector: 'arts',
      geography: 'New York',
      applicant_type: 'individual',
      annual_budget_usd: 60_000,
    },
    limit: 10,
  },
  {
    profile: {
      mission: 'A family farm cooperative adopting cover crops and soil health practices, and processing local food for regional markets.',
      sector: 'agriculture',
      geography: 'Iowa',
      applicant_type: 'for_profit',
      annual_budget_usd: 1_200_000,
    },
    focus_keywords: ['soil health', 'beginning farmers'],
    limit: 10,
  },
  {
    profile: {
      mission:
        'A national coalition of community colleges and employers building apprenticeships and career pathways in advanced manufacturing and health care.',
      sector: 'workforce development',
      geography: 'nationwide',
      applicant_type: 'nonprofit',
      is_501c3: false,
    },
    focus_keywords: ['apprenticeship'],
    limit: 10,
  },
];

export type MatchScenarioName = 'baseline' | 'match' | 'match-distinct' | 'match-distinct-1';

export interface MatchScenario {
  name: MatchScenarioName;
  label: string;
  /** MATCH_CONNECTIONS unless set. */
  connections?: number;
}

export const MATCH_SCENARIOS: readonly MatchScenario[] = [
  { name: 'baseline', label: 'bare node:http, fixed match response' },
  { name: 'match', label: `the ${MATCH_PROFILES.length} profiles in rotation, the same ${MATCH_PROFILES.length} bodies over and over` },
  { name: 'match-distinct', label: `the same profiles, every request's mission made unique` },
  // One caller at a time: the latency a request sees when it waits behind no other.
  { name: 'match-distinct-1', label: 'match-distinct with one connection', connections: 1 },
];

/**
 * Appended to the mission to make its text, and so the index's cache key, unique. A bare number
 * rather than a word: the word vectors have no entry for it, so the embedding and the answer stay
 * those of the repeated profile (the probes check) and only the cache is taken away. " Reference
 * <n>." moved the profiles' top matches.
 */
export const DISTINCT_MISSION_SUFFIX = (n: number | string) => ` #${n}.`;

export type MatchScenarioSummary = ScenarioSummary<MatchScenario>;

export interface ProbedProfile {
  sector: string | null;
  applicantType: string | null;
  geography: string | null;
  /** Candidates the index returned (meta.candidates) and matches returned (count). */
  candidates: number;
  count: number;
  responseBytes: number;
  /** Whether the profile with a distinct mission returned the same top matches, in order. */
  distinctSameMatches: boolean;
}

export interface MatchBenchResult {
  grants: number;
  openGrants: number;
  connections: number;
  rounds: number;
  durationSeconds: number;
  warmupSeconds: number;
  /** Machine facts at the start of this part, which may be rewritten alone (`--parts match`). */
  machine: MachineInfo;
  firstStart: FirstStart;
  profiles: ProbedProfile[];
  baselineBytes: number;
  summaries: MatchScenarioSummary[];
  apiMemory: { idle: ProcessMemory; afterRuns: ProcessMemory };
  baselineMemory: ProcessMemory;
  seconds: number;
}

type Round = SummaryRound<MatchScenarioName>;

async function postJson(url: string, body: string, headers: BenchHeaders): Promise<ProbedResponse> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...headers, 'Content-Type': 'application/json' },
    body,
    signal: AbortSignal.timeout(60_000),
  });
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', body: Buffer.from(await response.arrayBuffer()) };
}

interface MatchReply {
  count: number;
  matches: { id: string }[];
  meta: { candidates: number };
}

/** One request before any load: a 200 with at least one match, or the bench stops and shows the body. */
async function probeMatch(url: string, body: string, headers: BenchHeaders): Promise<{ reply: MatchReply; response: ProbedResponse }> {
  const response = await postJson(url, body, headers);
  const text = response.body.toString('utf8');
  if (response.status !== 200) throw new Error(`POST ${url} ${body}: status ${response.status}: ${text.slice(0, 1000)}`);
  const reply = JSON.parse(text) as MatchReply;
  if (!(reply.count >= 1))
    throw new Error(`POST ${url} ${body}: no matches (count ${reply.count}); the scenario would measure an empty answer: ${text.slice(0, 1000)}`);
  return { reply, response };
}

function withMission(body: MatchProfileBody, suffix: string): string {
  return JSON.stringify({ ...body, profile: { ...body.profile, mission: body.profile.mission + suffix } });
}

/** Start both servers, probe every profile, warm up, interleaved rounds, stop. */
export async function benchMatch(grants: number, options: BenchOptions, log: (line: string) => void): Promise<MatchBenchResult> {
  const startedAt = performance.now();
  const machine = describeMachine();
  log(`\n== match, ${grants} grants ==`);
  const { server: api, firstStart } = await startApiServer(grants, { log });
  let baseline: RunningServer | undefined;
  try {
    const idle = readProcessMemory(api.child.pid);
    log(`  API server pid ${api.child.pid} at ${api.baseUrl}, idle RSS ${megabytes(idle.rssBytes)} MB`);
    const headers = { Authorization: benchAuthorization(grants) };
    const matchUrl = `${api.baseUrl}${MATCH_PATH}`;
    const matchPath = `${new URL(api.baseUrl).pathname}${MATCH_PATH}`;
    const repeatedBodies = MATCH_PROFILES.map((profile) => JSON.stringify(profile));

    // One counter per scenario for the whole part, so no distinct mission is ever sent twice.
    let repeated = 0;
    let distinct = 0;
    const nextRepeated = (): JsonRequest => ({ method: 'POST', path: matchPath, body: repeatedBodies[repeated++ % repeatedBodies.length]! });
    const nextDistinct = (): JsonRequest => {
      const n = distinct++;
      return { method: 'POST', path: matchPath, body: withMission(MATCH_PROFILES[n % MATCH_PROFILES.length]!, DISTINCT_MISSION_SUFFIX(n)) };
    };

    const profiles: ProbedProfile[] = [];
    let baselinePage: ProbedResponse | undefined;
    for (const [i, body] of repeatedBodies.entries()) {
      const { reply, response } = await probeMatch(matchUrl, body, headers);
      const variant = await probeMatch(matchUrl, withMission(MATCH_PROFILES[i]!, DISTINCT_MISSION_SUFFIX(distinct++)), headers);
      const ids = (r: MatchReply) => r.matches.map((m) => m.id).join();
      const profile = MATCH_PROFILES[i]!.profile;
      profiles.push({
        sector: profile.sector ?? null,
        applicantType: profile.applicant_type ?? null,
        geography: profile.geography ?? null,
        candidates: reply.meta.candidates,
        count: reply.count,
        responseBytes: response.body.length,
        distinctSameMatches: ids(reply) === ids(variant.reply),
      });
      baselinePage ??= response;
      log(
        `  profile ${i + 1} (${profile.applicant_type}, ${profile.geography}): ${reply.meta.candidates} candidates, ${reply.count} matches, ${response.body.length} bytes` +
          `${profiles.at(-1)!.distinctSameMatches ? '' : '; the distinct mission changes the matches'}`,
      );
    }
    baseline = await startBaselineServer(baselinePage!.body, baselinePage!.contentType);
    log(`  baseline pid ${baseline.child.pid} at ${baseline.baseUrl}, serving ${baselinePage!.body.length} bytes (profile 1's response)`);
    const openGrants = await countGrants(api.baseUrl, '', headers);

    const serverFor = (name: MatchScenarioName) => (name === 'baseline' ? baseline! : api);
    // The baseline gets the same POSTs (any path answers), so both sides parse the same requests.
    const nextRequestFor = (name: MatchScenarioName) => (name === 'match-distinct' || name === 'match-distinct-1' ? nextDistinct : nextRepeated);
    const run = async (name: MatchScenarioName, durationSeconds: number) => {
      const server = serverFor(name);
      try {
        const measured = await measure(`${new URL(server.baseUrl).origin}${matchPath}`, {
          connections: MATCH_SCENARIOS.find((scenario) => scenario.name === name)?.connections ?? MATCH_CONNECTIONS,
          durationSeconds,
          nextRequest: nextRequestFor(name),
          headers,
        });
        // Requests autocannon abandoned at the end may still be in the server's queue; one more
        // request returns only after them, so the next run starts on an idle server.
        await postJson(`${new URL(server.baseUrl).origin}${matchPath}`, repeatedBodies[0]!, headers);
        return measured;
      } catch (error) {
        throw new Error(`${(error as Error).message}\n--- ${server.child.label} output (tail) ---\n${server.child.output().slice(-3000)}`);
      }
    };

    if (options.warmupSeconds > 0) {
      for (const { name } of MATCH_SCENARIOS) await run(name, options.warmupSeconds);
      log(`  warmed up (${options.warmupSeconds} s per scenario)`);
    }

    const rounds: Round[] = [];
    for (let i = 1; i <= options.rounds; i++) {
      const round = {} as Round;
      for (const { name } of MATCH_SCENARIOS) {
        const measured = await run(name, options.durationSeconds);
        const entry = { ...measured, rssBytes: readProcessMemory(serverFor(name).child.pid).rssBytes };
        round[name] = entry;
        log(
          `  round ${i}/${options.rounds} ${name.padEnd(14)} ${entry.requestsPerSecond.toFixed(1).padStart(7)} req/s` +
            `  p50 ${entry.p50Ms.toFixed(2)} ms  p99 ${entry.p99Ms.toFixed(2)} ms  RSS ${megabytes(entry.rssBytes)} MB`,
        );
      }
      rounds.push(round);
    }

    return {
      grants,
      openGrants,
      connections: MATCH_CONNECTIONS,
      rounds: options.rounds,
      durationSeconds: options.durationSeconds,
      warmupSeconds: options.warmupSeconds,
      machine,
      firstStart,
      profiles,
      baselineBytes: baselinePage!.body.length,
      summaries: summarise(MATCH_SCENARIOS, rounds),
      apiMemory: { idle, afterRuns: readProcessMemory(api.child.pid) },
      baselineMemory: readProcessMemory(baseline.child.pid),
      seconds: (performance.now() - startedAt) / 1000,
    };
  } finally {
    await baseline?.child.stop();
    await api.child.stop();
  }
}
