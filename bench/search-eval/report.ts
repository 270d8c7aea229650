import type { SimilarityScale } from '../../lambdas/core/search/relevance';
import { describeSpace } from '../../lambdas/core/search/vector-space';
import type { VectorSpace } from '../../lambdas/ports/embedder';
import { cell, f3, int, table } from '../format';
import { BM25_PARAMS } from './bm25-baseline';
import { type Calibration, calibrationLines } from './calibration';
import type { OpportunityKind } from './collection';
import type { ScoredRun } from './judgements';
import { QUERY_CATEGORIES, QUERY_SETS, type QueryCategory, type QueryScore, type QuerySet, type SystemSummary } from './judgements';
import { type ProbeAnswer, summariseProbes } from './probes';
import { relevanceByGradeLines } from './relevance-by-grade';
import type { EvalScope } from './scope';
import { SYSTEMS, type SystemName } from './systems';
import { type TargetCheck, targetLine, verdict } from './targets';

/** The section `npm run eval:models` writes (compare-models.ts). */
export const EMBEDDING_MODEL_MARKERS = {
  start: '<!-- embedding model section: npm run eval:models -->',
  end: '<!-- end of embedding model section -->',
} as const;

export const SEARCH_QUALITY_MARKERS = {
  start: '<!-- search quality section: npm run eval:search -->',
  end: '<!-- end of search quality section -->',
} as const;

export interface ReportSetup {
  evalDate: string;
  scope: EvalScope;
  files: readonly string[];
  embedder: VectorSpace;
  scale: SimilarityScale;
  depth: number;
  collections: Record<OpportunityKind, { size: number; method: string }>;
}

export interface ReportInput {
  setup: ReportSetup;
  scores: QueryScore[];
  summary: Record<QuerySet, Record<SystemName, SystemSummary>>;
  probes: string[];
  probeAnswers: ProbeAnswer[];
  holdout: string[];
  holdoutAnswers: ProbeAnswer[];
  targets: TargetCheck[];
  calibration: Calibration;
  run: ScoredRun;
}

const orNa = (n: number | null) => (n === null ? 'n/a' : f3(n));
const signed = (n: number) => `${n >= 0 ? '+' : ''}${n.toFixed(3)}`;
const relevanceOf = (n: number | null) => (n === null ? '-' : n.toFixed(3));

const SET_NAMES: Record<QuerySet, string> = { holdout: 'held out', tuning: 'tuning', fresh: 'fresh' };

function summaryTable({ summary, scores }: ReportInput): string {
  const scoredIn = (set: QuerySet, category?: QueryCategory) =>
    scores.filter((s) => s.status === 'scored' && s.set === set && (!category || s.category === category));
  const rows = QUERY_SETS.flatMap((set) =>
    SYSTEMS.map((system) => {
      const s = summary[set][system];
      const byCategory = QUERY_CATEGORIES.map((category) => {
        const of = scoredIn(set, category);
        return of.length === 0 ? '-' : f3(of.reduce((sum, q) => sum + q.bySystem[system].ndcg10, 0) / of.length);
      });
      return [
        `${SET_NAMES[set]} (${scoredIn(set).length})`,
        system,
        f3(s.ndcg10),
        f3(s.recall50),
        f3(s.cappedRecall50),
        ...byCategory,
        orNa(s.ndcg10Grants),
        orNa(s.ndcg10Contracts),
        String(s.noResultScored),
      ];
    }),
  );
  const counts = (category: QueryCategory) => QUERY_SETS.map((set) => scoredIn(set, category).length).join(' + ');
  return table(
    [
      'queries',
      'system',
      'nDCG@10',
      'recall@50',
      'capped recall@50',
      ...QUERY_CATEGORIES.map((c) => `nDCG@10 ${c} (${counts(c)})`),
      'nDCG@10 grants',
      'nDCG@10 contracts',
      'judged queries with no result',
    ],
    rows,
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
          noRelevant.map((s) => `"${s.query}" (${s.kind}, ${s.dropped} of ${s.dropped + s.kept} judgements outside)`).join('; ') +
          '.',
  );
  if (unjudged.length > 0) {
    lines.push(
      '',
      `Unjudged, excluded from the means until judged from the pool (${unjudged.length}): ${unjudged.map((s) => `"${s.query}" (${s.kind})`).join('; ')}.`,
    );
  }
  return lines;
}

function lossTable(scores: readonly QueryScore[]): string[] {
  const losses = scores.filter(
    (s) => s.status === 'scored' && (s.bySystem.keyword.ndcg10 < s.bySystem.baseline.ndcg10 || s.bySystem.hybrid.ndcg10 < s.bySystem.baseline.ndcg10),
  );
  if (losses.length === 0) return ["No judged query where keyword or hybrid nDCG@10 is below the baseline's."];
  const rows = losses
    .sort(
      (a, b) =>
        Number(b.set !== 'tuning') - Number(a.set !== 'tuning') ||
        a.bySystem.hybrid.ndcg10 - a.bySystem.baseline.ndcg10 - (b.bySystem.hybrid.ndcg10 - b.bySystem.baseline.ndcg10),
    )
    .map((s) => {
      const { baseline, keyword, hybrid } = s.bySystem;
      return [
        `${s.query} (${s.kind})`,
        SET_NAMES[s.set],
        s.category,
        f3(baseline.ndcg10),
        f3(keyword.ndcg10),
        signed(keyword.ndcg10 - baseline.ndcg10),
        f3(hybrid.ndcg10),
        signed(hybrid.ndcg10 - baseline.ndcg10),
      ];
    });
  return [
    `Judged queries where keyword or hybrid nDCG@10 is below the baseline's (${losses.length} of ${scores.filter((s) => s.status === 'scored').length}), held-out and fresh ones first, worst hybrid loss first:`,
    '',
    table(['query', 'set', 'category', 'baseline', 'keyword', 'keyword - baseline', 'hybrid', 'hybrid - baseline'], rows),
  ];
}

function probeTable(name: string, texts: readonly string[], answers: readonly ProbeAnswer[]): string[] {
  const n = texts.length;
  const rows = summariseProbes(texts, answers).map((p) => [p.system, `${p.grants} of ${n}`, `${p.contracts} of ${n}`, `${p.either} of ${n}`]);
  return [`${name}:`, '', table(['system', 'probes answered on grants', 'on contracts', 'on either'], rows)];
}

function probeLines({ probes, probeAnswers, holdout, holdoutAnswers }: ReportInput): string[] {
  const all = [...probeAnswers, ...holdoutAnswers];
  const offending = (systems: readonly SystemName[]) =>
    all
      .filter((a) => a.total > 0 && systems.includes(a.system))
      .map((a) => [cell(a.probe), a.kind, a.system, int(a.total), cell(a.top?.title ?? ''), relevanceOf(a.top?.relevance ?? null)]);
  const header = ['probe', 'kind', 'system', 'total', 'top result', 'relevance'];
  const vector = offending(['semantic', 'hybrid']);
  const lexical = offending(['keyword', 'baseline']);
  return [
    `### Off-topic probes`,
    '',
    `Everyday queries no grant or federal contract should answer, each run against grants and against contracts: ${probes.length} that calibrate the`,
    `floors (\`off_topic_probes\` in queries.json) and ${holdout.length} held out (\`off_topic_holdout\`), one- and two-word ones among both. A probe is`,
    "answered when the system returns anything (total > 0). Semantic and hybrid search must answer none; keyword search answers where the probe's",
    'words really occur (DESIGN.md section 3: it has no semantic floor), as the BM25 baseline does.',
    '',
    ...probeTable('Calibration probes', probes, probeAnswers),
    '',
    ...probeTable('Held-out probes', holdout, holdoutAnswers),
    '',
    vector.length === 0
      ? 'Neither semantic nor hybrid search answers any probe.'
      : `Answered by semantic or hybrid search (${vector.length} probe/kind/mode triples):`,
    ...(vector.length === 0 ? [] : ['', table(header, vector)]),
    '',
    `<details><summary>Answered by keyword search and the BM25 baseline (${lexical.length}; relevance is the baseline's raw BM25 score)</summary>`,
    '',
    lexical.length === 0 ? 'None.' : table(header, lexical),
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
    `${SET_NAMES[s.set]}, ${s.category}, ${s.status}`,
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
    `${scores.length} labelled queries (bench/search-eval/queries.json; judgements made by reading pooled records, not by running the search):`,
    `${QUERY_CATEGORIES.map((c) => `${scores.filter((s) => s.category === c).length} ${c}`).join(', ')} (short: one or two words; identifier: an opportunity, listing, solicitation,`,
    `NAICS, PSC or agency code, typed in any spacing and case). **Held-out** queries (${scores.filter((s) => s.set === 'holdout').length}) were written and judged before the search`,
    'changes they measure and never tuned on; the targets are theirs. **Tuning** queries were looked at while search was changed.',
    `**Fresh** queries (${scores.filter((s) => s.set === 'fresh').length}) were written and judged after the held-out ones had been read at a final run, for ranking`,
    'work after it: never tuned on, checked against the same targets, apart.',
    `Each runs through the list endpoints' code with the scope's filters, ${setup.depth} results each. Embedder ${describeSpace(setup.embedder)}, floor`,
    `${setup.scale.floor} and lexical floor ${setup.scale.lexicalFloor} (cosines; "Floor calibration" below); hybrid fuses the keyword and semantic lists. **baseline** is a plain Okapi BM25 written in the evaluation (\`bm25-baseline.ts\`, none`,
    `of the service's search code): OR semantics over title x${titleWeight} + description, k1 = ${k1}, b = ${b}, lower-cased, split on non-letters/digits,`,
    'English stop words removed, Porter stemming, over the same collection.',
    '',
    `Judgements of records outside the collection (${setup.scope === 'catalogue' ? 'awards' : `closed or lapsed on ${setup.evalDate}`}) are dropped for every system alike before scoring:`,
    `${dropped} of ${judged} judgements. nDCG@10 uses gains 2^grade - 1 against the ideal order of the judgements that remain; recall@50 counts`,
    `records graded 1 or more; capped recall@50 divides what the first 50 hold by the smaller of 50 and the relevant records (BEIR's R_cap), so a query`,
    `with more relevant records than a page can hold does not cap every system below 1. Unjudged records count as not relevant. Means are over the ${scored.length} queries that keep a relevant record.`,
    '',
    summaryTable(input),
    '',
    targetLine(targets),
    '',
    table(
      ['target', 'value', 'wanted', 'verdict'],
      targets.map((t) => [t.name, t.value, t.target, verdict(t)]),
    ),
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
