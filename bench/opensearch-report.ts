import { duration, int, megabytes, ms, table } from './format';
import type { MachineInfo } from './machine';
import { machineLines } from './format';
import { OPENSEARCH_SCENARIOS, type OpenSearchBenchResult, type OpenSearchScenario } from './opensearch';

/** The "Search on OpenSearch beside the embedded index" section of docs/benchmarks.md (`npm run bench -- --parts opensearch`). */

export const OPENSEARCH_MARKERS = { start: '<!-- opensearch section: npm run bench -- --parts opensearch -->', end: '<!-- end of opensearch section -->' } as const;

const LABELS: Record<OpenSearchScenario, string> = {
  'filtered-distinct': 'filtered list (CA/NY + national, open, by deadline)',
  'search-distinct': 'keyword search "community health"',
  'semantic-distinct': 'semantic search "community health"',
  'hybrid-distinct': 'hybrid search "community health"',
};

export function openSearchSection(result: OpenSearchBenchResult | null, machine: MachineInfo, connections: number, rounds: number, durationSeconds: number): string {
  const heading = '## Search on OpenSearch beside the embedded index';
  if (!result) return `${OPENSEARCH_MARKERS.start}\n${heading}\n\nNot measured in this run.\n${OPENSEARCH_MARKERS.end}`;
  const summary = (name: string) => result.summaries.find((s) => s.scenario.name === name)!;
  const baseline = summary('baseline');
  const rows = OPENSEARCH_SCENARIOS.map((name) => {
    const embedded = summary(`embedded:${name}`);
    const openSearch = summary(`opensearch:${name}`);
    return [
      LABELS[name],
      `${int(result.totals[name].embedded)} / ${int(result.totals[name].opensearch)}`,
      int(embedded.requestsPerSecond), `${ms(embedded.p50Ms)} / ${ms(embedded.p99Ms)}`, `${(embedded.ratioToBaseline! * 100).toFixed(2)}%`,
      int(openSearch.requestsPerSecond), `${ms(openSearch.p50Ms)} / ${ms(openSearch.p99Ms)}`, `${(openSearch.ratioToBaseline! * 100).toFixed(2)}%`,
      `${result.openSearchOverEmbedded[name].toFixed(2)}x`,
    ];
  });
  const fill = result.fill.seconds === null ? 'filled by an earlier run and reused' : `filled in ${duration(result.fill.seconds)} (\`_bulk\` through the adapter, vectors from the embedding cache)`;
  return [
    OPENSEARCH_MARKERS.start,
    heading,
    '',
    ...machineLines(machine, result.seconds),
    '',
    `${int(result.grants)} grants, the bench's synthetic catalogue, in OpenSearch ${result.openSearchVersion} (one node on this machine, k-NN plugin, heap 768 MB; ${fill})`,
    'beside the embedded index (SQLite FTS5 and the in-memory vector matrix) over the same data folder. Both are served by the same',
    'local HTTP server and route handlers (`bin/local.ts`; for OpenSearch `bench/opensearch-api-server.ts`, which swaps in the',
    'OpenSearch adapter and thin client the Lambdas use), and a bare node:http server answers a fixed 20-grant page. Every request is',
    `a distinct query (a no-op or sub-dollar parameter varies), so no result cache answers. ${connections} connections, ${rounds} interleaved`,
    `rounds of ${durationSeconds} s (baseline, then each scenario on the embedded index and on OpenSearch), medians; each ratio is taken`,
    'within a round and the median shown. The node, both servers and the load generator share the same cores.',
    '',
    table(['scenario', 'matches (embedded / OpenSearch)', 'embedded req/s', 'p50 / p99 ms', 'of bare', 'OpenSearch req/s', 'p50 / p99 ms', 'of bare', 'OpenSearch / embedded'], [
      ['bare node:http, fixed 20-grant page', '', '', '', '', '', '', '', `${int(baseline.requestsPerSecond)} req/s, p50 ${ms(baseline.p50Ms)} ms`],
      ...rows,
    ]),
    '',
    `- **Memory** after the runs: embedded API server RSS ${megabytes(result.memory.embeddedApi.rssBytes)} MB (peak ${megabytes(result.memory.embeddedApi.peakRssBytes)} MB); ` +
      `API server over OpenSearch ${megabytes(result.memory.openSearchApi.rssBytes)} MB; OpenSearch node ${megabytes(result.memory.openSearchNode.rssBytes)} MB.`,
    ...(OPENSEARCH_SCENARIOS.every((name) => result.totals[name].embedded === result.totals[name].opensearch)
      ? ['- **Totals:** the same on both engines for every scenario: the filters are one query, keyword matching keeps the same terms',
        '  (FTS5 with the Porter stemmer, Lucene with the english analyzer), and semantic matches are the same vectors against the same floor,',
        '  scored exactly on both (OpenSearch by a `script_score` scan, as the adapter queries it).']
      : ['- **Why the totals differ:** the filters are one query; keyword matching is FTS5 with the Porter stemmer on one side and Lucene',
        '  with the english analyzer on the other, and semantic matches are the same vectors against the same floor, scored exactly on both',
        '  (OpenSearch by a `script_score` scan), so differences come from text analysis and from float rounding at the floor.']),
    '- **Hybrid on OpenSearch** reads both ranked lists to the rank window (10,100 ids each, as deep as the API pages) and fuses them in',
    '  the function; at this size reading that deep, not the scan, is most of its cost (the semantic list answers in about 175 ms at 10,100 hits',
    '  and 60 ms at 100). Computing the fused score inside the engine, one scan returning one page, is the next step for it.',
    '- **Reading it:** in AWS the domain runs on its own data nodes, so the Lambda pays the network hop and OpenSearch\'s own work, not',
    '  this machine\'s CPU contention; these figures compare the engines on equal hardware, not a deployment.',
    OPENSEARCH_MARKERS.end,
  ].join('\n');
}
