// `npm run eval:models`: the candidate sentence-embedding models of the embedded stack side by side
// on ../shared/data, one after the other in one run: embedding speed, the semantic ranking each
// gives the labelled queries (nDCG@10 over the whole collection), and where a floor can go: the
// calibration probes' best matches against the labelled queries' best. Writes the "The local
// embedding model" section of docs/benchmarks.md.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OnnxSentenceEmbedder } from '../../lambdas/adapters/embedded/onnx-embedder';
import { DEFAULT_SENTENCE_MODEL, SENTENCE_MODELS, type SentenceModelId } from '../../lambdas/adapters/embedded/sentence-models';
import { embeddingTextOf } from '../../lambdas/core/search/embedding-text';
import { fetchModelFiles, ModelFilesMissing, verifiedModelFiles } from '../../local/sentence-model-files';
import { PROJECT_ROOT } from '../child-processes';
import { f3, table } from '../format';
import { withMarkedSection } from '../report';
import { idsBySourceKey, SHARED_DATA, sharedDataCatalogue, sharedDataPresent } from '../shared-data-catalogue';
import { writeReportWithSummary } from '../summary-table';
import { type OpportunityKind, searchableCollection } from './collection';
import { EVAL_DATE, pinnedClock } from './eval-date';
import type { LabelledQuery } from './judgements';
import { mean, ndcgAt } from './metrics';
import { EMBEDDING_MODEL_MARKERS } from './report';

const MARKERS = EMBEDDING_MODEL_MARKERS;
const FILES = ['funders.jsonl', 'grants.jsonl', 'contracts.jsonl'] as const;
const KINDS: readonly OpportunityKind[] = ['grant', 'contract'];
/** A model's floor, as relevance.ts sets them: this much above the calibration probes' best match. */
const FLOOR_MARGIN = 0.005;

interface Corpus {
  ids: Record<OpportunityKind, string[]>;
  texts: Record<OpportunityKind, string[]>;
  queries: { query: LabelledQuery; grades: Map<string, number> }[];
  probes: string[];
  holdout: string[];
}

interface ModelRow {
  id: SentenceModelId;
  recordsPerSecond: number;
  queryMs: number;
  ndcgNoFloor: number;
  floor: number;
  ndcgAtFloor: number;
  zeroAtFloor: number;
  lowestQueryBest: number;
  /** The 90th percentile of the labelled queries' best cosines: the upper reference of the model's scale. */
  upper: number;
  highestProbeBest: number;
  holdoutAnswered: number;
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

async function measure(id: SentenceModelId, corpus: Corpus): Promise<ModelRow> {
  const model = SENTENCE_MODELS[id];
  let files: ReturnType<typeof verifiedModelFiles>;
  try {
    files = verifiedModelFiles(model);
  } catch (error) {
    if (!(error instanceof ModelFilesMissing)) throw error;
    console.error(`fetching ${model.artifact} with mvn…`);
    files = fetchModelFiles(model);
  }
  const embedder = await OnnxSentenceEmbedder.load(model, files);
  try {
    const vectors = {} as Record<OpportunityKind, Float32Array[]>;
    let started = performance.now();
    for (const kind of KINDS) vectors[kind] = (await embedder.embed(corpus.texts[kind], 'document')).map((v) => v ?? new Float32Array(model.dimensions));
    const recordsPerSecond = (corpus.texts.grant.length + corpus.texts.contract.length) / ((performance.now() - started) / 1000);
    const queryTexts = corpus.queries.map((q) => q.query.query);
    started = performance.now();
    const queryVectors = await embedder.embed(queryTexts, 'query');
    const queryMs = (performance.now() - started) / queryTexts.length;
    const probeVectors = await embedder.embed(corpus.probes, 'query');
    const holdoutVectors = await embedder.embed(corpus.holdout, 'query');
    const cosinesOf = (kind: OpportunityKind, query: Float32Array | null) => vectors[kind].map((v) => (query ? dot(v, query) : -1));
    const bestOf = (query: Float32Array | null, kinds: readonly OpportunityKind[]) => Math.max(...kinds.flatMap((kind) => cosinesOf(kind, query)));
    const highestProbeBest = Math.max(...probeVectors.map((v) => bestOf(v, KINDS)));
    const floor = Math.ceil((highestProbeBest + FLOOR_MARGIN) * 1000) / 1000;
    const noFloor: number[] = [];
    const atFloor: number[] = [];
    let zeroAtFloor = 0;
    const bests: number[] = [];
    corpus.queries.forEach(({ query, grades }, i) => {
      const cosines = cosinesOf(query.kind, queryVectors[i]!);
      const order = cosines.map((_, j) => j).sort((a, b) => cosines[b]! - cosines[a]!);
      const ranked = order.map((j) => corpus.ids[query.kind][j]!);
      noFloor.push(ndcgAt(10, ranked, grades));
      const kept = order.filter((j) => cosines[j]! >= floor).map((j) => corpus.ids[query.kind][j]!);
      atFloor.push(ndcgAt(10, kept, grades));
      if (kept.length === 0) zeroAtFloor++;
      bests.push(cosines[order[0]!]!);
    });
    bests.sort((a, b) => a - b);
    const lowestQueryBest = bests[0]!;
    const upper = Math.round(bests[Math.floor(0.9 * (bests.length - 1))]! * 100) / 100;
    const holdoutAnswered = holdoutVectors.filter((v) => bestOf(v, KINDS) >= floor).length;
    return {
      id,
      recordsPerSecond,
      queryMs,
      ndcgNoFloor: mean(noFloor),
      floor,
      ndcgAtFloor: mean(atFloor),
      zeroAtFloor,
      lowestQueryBest,
      upper,
      highestProbeBest,
      holdoutAnswered,
    };
  } finally {
    await embedder.close();
  }
}

async function loadCorpus(): Promise<Corpus> {
  const file = JSON.parse(readFileSync(join(PROJECT_ROOT, 'bench', 'search-eval', 'queries.json'), 'utf8')) as {
    queries: LabelledQuery[];
    off_topic_probes: string[];
    off_topic_holdout?: string[];
  };
  const stack = await sharedDataCatalogue(join(PROJECT_ROOT, 'bench', '.data', 'search-eval-open'), pinnedClock(EVAL_DATE), FILES);
  try {
    const corpus: Corpus = {
      ids: { grant: [], contract: [] },
      texts: { grant: [], contract: [] },
      queries: [],
      probes: file.off_topic_probes,
      holdout: file.off_topic_holdout ?? [],
    };
    const idsBySource = {} as Record<OpportunityKind, Map<string, string>>;
    for (const kind of KINDS) {
      const collection = await searchableCollection(stack, kind, EVAL_DATE, 'catalogue');
      for (const [id, record] of collection.records) {
        corpus.ids[kind].push(id);
        corpus.texts[kind].push(embeddingTextOf(kind, record));
      }
      idsBySource[kind] = await idsBySourceKey(stack, kind);
    }
    for (const query of file.queries) {
      const inCollection = new Set(corpus.ids[query.kind]);
      const grades = new Map<string, number>();
      for (const j of query.judgements) {
        const id = idsBySource[query.kind].get(`${j.source}|${j.source_id}`);
        if (id && inCollection.has(id)) grades.set(id, Math.max(grades.get(id) ?? 0, j.grade));
      }
      if ([...grades.values()].some((grade) => grade >= 1)) corpus.queries.push({ query, grades });
    }
    return corpus;
  } finally {
    await stack.close();
  }
}

async function main(): Promise<void> {
  if (!sharedDataPresent(FILES)) {
    console.error(`eval:models: skipped, ../shared/data is absent (${SHARED_DATA})`);
    return;
  }
  const corpus = await loadCorpus();
  const rows: ModelRow[] = [];
  for (const id of Object.keys(SENTENCE_MODELS) as SentenceModelId[]) {
    rows.push(await measure(id, corpus));
    const r = rows.at(-1)!;
    console.log(
      `${id}: ${r.recordsPerSecond.toFixed(0)} records/s, ${r.queryMs.toFixed(1)} ms a query, nDCG@10 ${r.ndcgNoFloor.toFixed(3)} (no floor), floor ${r.floor}: nDCG@10 ${r.ndcgAtFloor.toFixed(3)}, ${r.zeroAtFloor} queries unanswered, ${r.holdoutAnswered} held-out probes answered, upper reference ${r.upper}`,
    );
  }
  const records = corpus.texts.grant.length + corpus.texts.contract.length;
  const section = [
    MARKERS.start,
    '## The local embedding model',
    '',
    `Written by \`npm run eval:models\` (\`bench/search-eval/compare-models.ts\`) on ${new Date().toISOString().slice(0, 10)}: the candidate sentence transformers whose ONNX weights ship in Maven Central, quantised and full-precision, one after the other in one run on this machine.`,
    `Each embeds the whole collection of \`npm run eval:search\` (${records.toLocaleString('en-US')} grants and contracts of ../shared/data, texts as the index embeds them, cut at 128 tokens) and ranks it for the ${corpus.queries.length} labelled queries by cosine alone: nDCG@10 as in "Search quality".`,
    `A model's floor is set as the service sets it (lambdas/core/search/relevance.ts): ${FLOOR_MARGIN} above the best cosine any of the ${corpus.probes.length} calibration probes reaches (grants or contracts), rounded up to 0.001; a labelled query whose best record is under it gets no answer. The ${corpus.holdout.length} held-out probes were never used to set it.`,
    "The upper reference (relevance 1) is the 90th percentile of the labelled queries' best cosines, to 0.01.",
    '',
    table(
      [
        'model',
        'records/s',
        'query ms',
        'nDCG@10, no floor',
        'floor',
        'nDCG@10 at the floor',
        'labelled queries unanswered',
        'lowest best cosine of a labelled query',
        'highest best cosine of a probe',
        'held-out probes answered',
        'upper reference',
      ],
      rows.map((r) => [
        r.id + (r.id === DEFAULT_SENTENCE_MODEL ? ' (default)' : ''),
        r.recordsPerSecond.toFixed(0),
        r.queryMs.toFixed(1),
        f3(r.ndcgNoFloor),
        String(r.floor),
        f3(r.ndcgAtFloor),
        String(r.zeroAtFloor),
        f3(r.lowestQueryBest),
        f3(r.highestProbeBest),
        `${r.holdoutAnswered} of ${corpus.holdout.length}`,
        r.upper.toFixed(2),
      ]),
    ),
    '',
    'A floor is only as good as the gap between those two columns: a model whose lowest labelled best lies under its highest probe best must either answer a probe or leave a',
    'labelled query without an answer. bge-small-en-v1.5 (quantised) is the default: the best ranking at its floor and a gap on the right side; the quantised weights rank as well',
    'as the full-precision ones at twice the speed. Speeds share the machine with nothing else in this run, but the machine is shared: compare them as ratios.',
    MARKERS.end,
  ].join('\n');
  const report = join(PROJECT_ROOT, 'docs', 'benchmarks.md');
  writeReportWithSummary(report, withMarkedSection(existsSync(report) ? readFileSync(report, 'utf8') : '# Benchmarks\n', MARKERS, section));
  console.log(`wrote the embedding model section of ${report}`);
}

await main();
