import { SEARCH_MODES } from '../../lambdas/core/query/list-query';
import { describeSpace } from '../../lambdas/core/search/vector-space';
import type { VectorSpace } from '../../lambdas/ports/embedder';
import { cell, f3, int, table } from '../format';
import { BM25_PARAMS } from './bm25-baseline';
import type { OpportunityKind } from './collection';
import type { QueryScore, SystemSummary } from './judgements';
import type { ProbeAnswer, ProbeSummary } from './probes';
import { SYSTEMS, type SystemName } from './systems';
import { targetLine, verdict, type TargetCheck } from './targets';
import { calibrationLines, type Calibration } from './calibration';
import { relevanceByGradeLines } from './relevance-by-grade';
import type { ScoredRun } from './judgements';
import type { EvalScope } from './scope';

/** The section `npm run eval:models` writes (compare-models.ts). */
export const EMBEDDING_MODEL_MARKERS = { start: '<!-- embedding model section: npm run eval:models -->', end: '<!-- end of embedding model section -->' } as const;

export const SEARCH_QUALITY_MARKERS = {
  start: '<!-- search quality section: npm run eval:search -->',
  end: '<!-- end of search quality section -->',
} as const;

export interface ReportSetup {
  evalDate: string;
  scope: EvalScope;
  files: readonly string[];
  embedder: VectorSpace;
  floor: number;
  depth: number;
  collections: Record<OpportunityKind, { size: number; method: string }>;
}

export interface ReportInput {
  setup: ReportSetup;
  scores: QueryScore[];
  summary: Record<SystemName, SystemSummary>;
  probes: string[];
  probeAnswers: ProbeAnswer[];
  probeSummary: ProbeSummary[];
  targets: TargetCheck[];
  calibration: Calibration;
  run: ScoredRun;
}

const orNa = (n: number | null) => (n === null ? 'n/a' : f3(n));
const signed = (n: number) => `${n >= 0 ? '+' : ''}${n.toFixed(3)}`;
const relevanceOf = (n: number | null) => (n === null ? '-' : n.toFixed(3));

function summaryTable({ summary, scores }: ReportInput): string {
  const scored = scores.filter((s) => s.status === 'scored').length;
  const ofKind = (kind: OpportunityKind) => scores.filter((s) => s.status === 'scored' && s.kind === kind).length;
  return table(
    ['system', 'nDCG@10', 'recall@50', `nDCG@10 grants (${ofKind('grant')})`, `nDCG@10 contracts (${ofKind('contract')})`, `judged queries with no result (of ${scored})`, `labelled queries with no result (of ${scores.length})`, 'results outside the listing'],
    SYSTEMS.map((system) => {
      const s = summary[system];
      return [system, f3(s.ndcg10), f3(s.recall50), orNa(s.ndcg10Grants), orNa(s.ndcg10Contracts), String(s.noResultScored), String(s.noResultLabelled), String(s.outside)];
    }),
  );
}

function excludedLines(scores: readonly QueryScore[]): string[] {
  const noRelevant = scores.filter((s) => s.status === 'no-relevant');
  const unjudged = scores.filter((s) => s.status === 'unjudged');
  const lines: string[] = [];
  lines.push(
    noRelevant.length === 0
      ? 'Every judged query keeps at least one relevant record in the collection.'
      : `Excluded from the means, no record graded 1 or more in the collection on the evaluation date (${noRelevant.length}): ` +
          noRelevant.map((s) => `"${s.query}" (${s.kind}, ${s.dropped} of ${s.dropped + s.kept} judgements outside)`).join('; ') + '.',
  );
  if (unjudged.length > 0) {
    lines.push('', `Unjudged, excluded from the means until judged from the pool (${unjudged.length}): ${unjudged.map((s) => `"${s.query}" (${s.kind})`).join('; ')}.`);
  }
  return lines;
}

function lossTable(scores: readonly QueryScore[]): string[] {
  const losses = scores.filter((s) => s.status === 'scored' && (s.bySystem.keyword.ndcg10 < s.bySystem.baseline.ndcg10 || s.bySystem.hybrid.ndcg10 < s.bySystem.baseline.ndcg10));
  if (losses.length === 0) return ['No judged query where keyword or hybrid nDCG@10 is below the baseline\'s.'];
  const rows = losses
    .sort((a, b) => a.bySystem.hybrid.ndcg10 - a.bySystem.baseline.ndcg10 - (b.bySystem.hybrid.ndcg10 - b.bySystem.baseline.ndcg10))
    .map((s) => {
      const { baseline, keyword, hybrid } = s.bySystem;
      return [`${s.query} (${s.kind})`, f3(baseline.ndcg10), f3(keyword.ndcg10), signed(keyword.ndcg10 - baseline.ndcg10), f3(hybrid.ndcg10), signed(hybrid.ndcg10 - baseline.ndcg10)];
    });
  return [
    `Judged queries where keyword or hybrid nDCG@10 is below the baseline's (${losses.length} of ${scores.filter((s) => s.status === 'scored').length}), worst hybrid loss first:`,
    '',
    table(['query', 'baseline', 'keyword', 'keyword - baseline', 'hybrid', 'hybrid - baseline'], rows),
  ];
}

function probeLines({ probes, probeAnswers, probeSummary }: ReportInput): string[] {
  const n = probes.length;
  const summaryRows = probeSummary.map((p) => [p.system, `${p.grants} of ${n}`, `${p.contracts} of ${n}`, `${p.either} of ${n}`]);
  const offending = (systems: readonly SystemName[]) =>
    probeAnswers
      .filter((a) => a.total > 0 && systems.includes(a.system))
      .map((a) => [cell(a.probe), a.kind, a.system, int(a.total), cell(a.top?.title ?? ''), relevanceOf(a.top?.relevance ?? null)]);
  const header = ['probe', 'kind', 'system', 'total', 'top result', 'relevance'];
  const service = offending(SEARCH_MODES);
  const baseline = offending(['baseline']);
  return [
    `### Off-topic probes`,
    '',
    `${n} everyday queries no grant or federal contract should answer (\`off_topic_probes\` in queries.json), each run against grants and`,
    'against contracts. A probe is answered when the system returns anything (total > 0).',
    '',
    table(['system', 'probes answered on grants', 'on contracts', 'on either'], summaryRows),
    '',
    service.length === 0 ? 'No service mode answers any probe.' : `Answered by the service (${service.length} probe/kind/mode triples; relevance is the service's):`,
    ...(service.length === 0 ? [] : ['', table(header, service)]),
    '',
    `<details><summary>Answered by the BM25 baseline (${baseline.length}; OR semantics answers any probe sharing one word with a record; relevance is the raw BM25 score)</summary>`,
    '',
    baseline.length === 0 ? 'None.' : table(header, baseline),
    '',
    '</details>',
  ];
}

export function searchQualitySection(input: ReportInput): string {
  const { setup, scores, targets } = input;
  const scored = scores.filter((s) => s.status === 'scored');
  const dropped = scores.reduce((sum, s) => sum + s.dropped, 0);
  const judged = scores.reduce((sum, s) => sum + s.dropped + s.kept, 0);
  const { k1, b, titleWeight } = BM25_PARAMS;
  const perQuery = scores.map((s) => [
    `${cell(s.query)} (${s.kind}, ${s.relevant} relevant, ${s.dropped} dropped)`,
    s.status,
    ...SYSTEMS.map((system) => `${f3(s.bySystem[system].ndcg10)} / ${f3(s.bySystem[system].recall50)} / ${int(s.bySystem[system].total)}`),
  ]);
  return [
    SEARCH_QUALITY_MARKERS.start,
    '## Search quality on ../shared/data',
    '',
    `Written by \`npm run eval:search\` (\`bench/search-eval/run.ts\`), run on ${new Date().toISOString().slice(0, 10)} with the clock pinned to **${setup.evalDate}**:`,
    `${setup.files.join(', ')} of ../shared/data imported into the embedded stack (awards are never in a default search and are not imported).`,
    setup.scope === 'catalogue'
      ? `Scope **catalogue** (\`--scope catalogue\`, the default): every query, the collection's listing included, adds status=posted,forecasted,closed (contracts open,closed), i.e. every opportunity that is not an award, applyable or not, so ranking is measured over the whole catalogue (\`--scope applyable\` measures the default listing only). The collection of each kind is exactly what that listing returns on`
      : `Scope **applyable** (\`--scope applyable\`): the collection of each kind is exactly what the service's default listing (no search, default filters: opportunity_type=open) returns on`,
    `${setup.evalDate}: ${int(setup.collections.grant.size)} grants (${setup.collections.grant.method}) and ${int(setup.collections.contract.size)} contracts (${setup.collections.contract.method});`,
    'full records come from a scan of the record store, kept when their id is listed.',
    '',
    `${scores.length} labelled natural-language queries (bench/search-eval/queries.json; judgements made by reading the records, not by running the`,
    `search) run through the list endpoints' code with the scope's filters, ${setup.depth} results each. Embedder ${describeSpace(setup.embedder)}, semantic floor`,
    `${setup.floor} (cosine); hybrid fuses the keyword and semantic lists. **baseline** is a plain Okapi BM25 written in the evaluation (\`bm25-baseline.ts\`, none`,
    `of the service's search code): OR semantics over title x${titleWeight} + description, k1 = ${k1}, b = ${b}, lower-cased, split on non-letters/digits,`,
    'English stop words removed, Porter stemming, over the same collection.',
    '',
    `Judgements of records outside the collection (${setup.scope === 'catalogue' ? 'awards' : `closed or lapsed on ${setup.evalDate}`}) are dropped for every system alike before scoring:`,
    `${dropped} of ${judged} judgements. nDCG@10 uses gains 2^grade - 1 against the ideal order of the judgements that remain; recall@50 counts`,
    `records graded 1 or more. Unjudged records count as not relevant. Means are over the ${scored.length} queries that keep a relevant record.`,
    '',
    summaryTable(input),
    '',
    targetLine(targets),
    '',
    table(['target', 'value', 'wanted', 'verdict'], targets.map((t) => [t.name, t.value, t.target, verdict(t)])),
    '',
    ...excludedLines(scores),
    '',
    ...lossTable(scores),
    '',
    ...probeLines(input),
    '',
    ...calibrationLines(input.calibration),
    '',
    ...relevanceByGradeLines(input.run),
    '',
    '<details><summary>Per query: nDCG@10 / recall@50 / total results (kind, relevant records in the collection, judgements dropped)</summary>',
    '',
    table(['query', 'status', ...SYSTEMS], perQuery),
    '',
    '</details>',
    SEARCH_QUALITY_MARKERS.end,
  ].join('\n');
}
