import { parseArgs } from 'node:util';
import { DEFAULT_VECTOR_SEARCH, WINDOW_MAX } from '../lambdas/adapters/aws/opensearch-vector-search';

/** What one `npm run bench` measures; every knob has a flag and an environment variable. */
export interface BenchOptions {
  /** Catalogue sizes (grants), each served by its own API server. */
  sizes: number[];
  /** Seconds per measurement. */
  durationSeconds: number;
  /** Interleaved baseline/filtered/search rounds per size; medians are taken across them. */
  rounds: number;
  connections: number;
  /** Seconds of unrecorded load per scenario before the first round (JIT, SQLite page cache). */
  warmupSeconds: number;
  /** Where the markdown report goes. */
  outFile: string;
  /**
   * What runs: the API scenarios, the ingest of ../shared/data, the exact k-NN scan against a bare
   * loop, grant matching (POST /match-grants-api) at the biggest size, webhook delivery on the
   * embedded stack against a bare POST loop, admin commands with the server running and stopped, the Lambda bundles' sizes and cold start against an
   * empty handler, and the mixed load run (every kind of request at once, RSS over time) at the
   * biggest size against the bare server.
   */
  parts: BenchPart[];
  /** Seconds of the load part's mixed run (`npm run bench:load` takes the same default). */
  loadDurationSeconds: number;
  /** Fresh-process imports of each Lambda bundle in the coldstart part (medians are taken across them). */
  coldStartRuns: number;
  /**
   * The opensearch part also measures a catalogue this many times the biggest size, derived from it
   * (bench/opensearch-fill.ts), on OpenSearch alone; 1 measures the biggest size only.
   */
  openSearchScale: number;
  /** The k-NN window the opensearch part's API servers search with (`search.vectors.window`). */
  openSearchWindow: number;
}

export const BENCH_PARTS = ['api', 'ingest', 'knn', 'match', 'opensearch', 'webhooks', 'admin', 'coldstart', 'load'] as const;
/** Measures nothing: every run rebuilds the report's summary table, and this part asks for that alone. */
export const SUMMARY_PART = 'summary';
export const DEFAULT_LOAD_DURATION_SECONDS = 60;
export type BenchPart = (typeof BENCH_PARTS)[number] | typeof SUMMARY_PART;

const USAGE = `usage: npm run bench -- [--sizes 5000,100000] [--duration 10] [--rounds 3] [--connections 10] [--warmup 2] [--out docs/benchmarks.md] [--parts ${BENCH_PARTS.join(',')}] [--coldstart-runs 15] [--load-duration ${DEFAULT_LOAD_DURATION_SECONDS}] [--opensearch-scale 10] [--opensearch-window ${DEFAULT_VECTOR_SEARCH.window}]
environment: BENCH_SIZES, BENCH_DURATION, BENCH_ROUNDS, BENCH_CONNECTIONS, BENCH_WARMUP, BENCH_OUT, BENCH_PARTS, BENCH_COLDSTART_RUNS, BENCH_LOAD_DURATION, BENCH_OPENSEARCH_SCALE, BENCH_OPENSEARCH_WINDOW (flags win)
--opensearch-scale: the opensearch part also measures a catalogue this many times the biggest size, derived from it (1: none)
--opensearch-window: the k-NN window its semantic and hybrid searches read (a stage's search.vectors.window; at most ${WINDOW_MAX})
--load-duration: seconds of the load part's mixed run at the biggest size (longer runs: npm run bench:load -- --duration 600)
--parts ${SUMMARY_PART}: measure nothing, only rebuild the report's summary table from its sections`;

/** A flag's value as a positive integer, or an error that shows `usage`. */
export function positiveInteger(name: string, raw: string, usage = USAGE): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got "${raw}"\n${usage}`);
  return value;
}

export function parseBenchOptions(argv: string[], env: NodeJS.ProcessEnv): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      sizes: { type: 'string', default: env.BENCH_SIZES ?? '5000,100000' },
      duration: { type: 'string', default: env.BENCH_DURATION ?? '10' },
      rounds: { type: 'string', default: env.BENCH_ROUNDS ?? '3' },
      connections: { type: 'string', default: env.BENCH_CONNECTIONS ?? '10' },
      warmup: { type: 'string', default: env.BENCH_WARMUP ?? '2' },
      out: { type: 'string', default: env.BENCH_OUT ?? 'docs/benchmarks.md' },
      parts: { type: 'string', default: env.BENCH_PARTS ?? BENCH_PARTS.join(',') },
      'coldstart-runs': { type: 'string', default: env.BENCH_COLDSTART_RUNS ?? '15' },
      'load-duration': { type: 'string', default: env.BENCH_LOAD_DURATION ?? String(DEFAULT_LOAD_DURATION_SECONDS) },
      'opensearch-scale': { type: 'string', default: env.BENCH_OPENSEARCH_SCALE ?? '10' },
      'opensearch-window': { type: 'string', default: env.BENCH_OPENSEARCH_WINDOW ?? String(DEFAULT_VECTOR_SEARCH.window) },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const warmupSeconds = Number(values.warmup);
  if (!Number.isFinite(warmupSeconds) || warmupSeconds < 0) throw new Error(`--warmup must be >= 0 seconds\n${USAGE}`);
  return {
    sizes: values.sizes!.split(',').map((s) => positiveInteger('--sizes', s.trim())),
    durationSeconds: positiveInteger('--duration', values.duration!),
    rounds: positiveInteger('--rounds', values.rounds!),
    connections: positiveInteger('--connections', values.connections!),
    warmupSeconds,
    outFile: values.out!,
    parts: parseParts(values.parts!),
    coldStartRuns: positiveInteger('--coldstart-runs', values['coldstart-runs']!),
    loadDurationSeconds: positiveInteger('--load-duration', values['load-duration']!),
    openSearchScale: positiveInteger('--opensearch-scale', values['opensearch-scale']!),
    openSearchWindow: windowOf(values['opensearch-window']!),
  };
}

function windowOf(raw: string): number {
  const window = positiveInteger('--opensearch-window', raw);
  if (window > WINDOW_MAX) throw new Error(`--opensearch-window is at most ${WINDOW_MAX}, got ${window}\n${USAGE}`);
  return window;
}

function parseParts(raw: string): BenchPart[] {
  const parts = raw.split(',').map((part) => part.trim());
  const known: readonly string[] = [...BENCH_PARTS, SUMMARY_PART];
  const unknown = parts.filter((part) => !known.includes(part));
  if (unknown.length > 0 || parts.length === 0) throw new Error(`--parts takes ${known.join(', ')}; got "${raw}"\n${USAGE}`);
  return parts as BenchPart[];
}
