/**
 * What the floors are calibrated on (lambdas/core/search/relevance.ts, query-floor.ts): for each
 * labelled query and each off-topic probe, the evidence the index sets a query's floor from, over
 * the whole collection of its kind: the best cosine of any record, and the best cosine among the
 * records the query's words match in full. The calibration probes set the floors (0.005 above
 * the highest of each among them, rounded up to 0.001); the held-out probes were never used to
 * set them, so how many of them clear the floors estimates how often an unseen off-topic query
 * would be answered.
 */
import { type ListQuery, parseListQuery } from '../../lambdas/core/query/list-query';
import { type FloorBasis, queryFloorOf, SHORT_QUERY_WORDS } from '../../lambdas/core/search/query-floor';
import type { SimilarityScale } from '../../lambdas/core/search/relevance';
import type { EmbeddedStack } from '../../local/embedded-stack';
import { cell, f3, table } from '../format';
import type { OpportunityKind } from './collection';
import type { LabelledQuery } from './judgements';
import { type EvalScope, scopeParams } from './scope';

export interface FloorReading {
  text: string;
  kind: OpportunityKind;
  bestCosine: number;
  bestWordCosine: number;
  words: number;
  basis: FloorBasis;
}

export interface Calibration {
  scale: SimilarityScale;
  queries: FloorReading[];
  probes: FloorReading[];
  holdout: FloorReading[];
}

const KINDS: readonly OpportunityKind[] = ['grant', 'contract'];

/**
 * The index's floor evidence for one text, as a semantic search of the scope reads it, with no
 * lexical floor (the index reads evidence from its floor up, and the calibration needs all of it),
 * then judged on the scale in force.
 */
async function floorReading(
  stack: EmbeddedStack,
  scale: SimilarityScale,
  kind: OpportunityKind,
  text: string,
  today: string,
  scope: EvalScope,
): Promise<FloorReading> {
  const [vector] = await stack.services.embedder.embed([text], 'query');
  const query = parseListQuery(kind, { ...scopeParams(kind, scope), search: [text], search_mode: ['semantic'], limit: ['1'] }, today) as ListQuery & {
    kind: OpportunityKind;
  };
  const { floor } = await stack.services.index.query(kind, query, { vector: vector ?? null, scale: { ...scale, lexicalFloor: -1 } });
  const evidence = floor?.evidence;
  if (!evidence) throw new Error('the index answered a semantic query without the evidence of its floor');
  return {
    text,
    kind,
    bestCosine: evidence.bestCosine,
    bestWordCosine: evidence.bestWordCosine,
    words: evidence.words,
    basis: queryFloorOf(evidence, scale).basis,
  };
}

export async function calibrate(
  stack: EmbeddedStack,
  setup: { scale: SimilarityScale; today: string; scope: EvalScope },
  queries: readonly LabelledQuery[],
  probes: readonly string[],
  holdout: readonly string[],
): Promise<Calibration> {
  const run = async (items: readonly { text: string; kinds: readonly OpportunityKind[] }[]) => {
    const found: FloorReading[] = [];
    for (const { text, kinds } of items) for (const kind of kinds) found.push(await floorReading(stack, setup.scale, kind, text, setup.today, setup.scope));
    return found;
  };
  return {
    scale: setup.scale,
    queries: await run(queries.filter((q) => q.category !== 'identifier').map((q) => ({ text: q.query, kinds: [q.kind] }))),
    probes: await run(probes.map((text) => ({ text, kinds: KINDS }))),
    holdout: await run(holdout.map((text) => ({ text, kinds: KINDS }))),
  };
}

/** 0.005 above the highest value, rounded up to 0.001 (the rule relevance.ts states). */
const floorAbove = (values: number[]) => Math.ceil((Math.max(...values.filter(Number.isFinite)) + 0.005) * 1000) / 1000;

const isShort = (reading: FloorReading) => reading.words <= SHORT_QUERY_WORDS;

export function calibratedFloors(calibration: Calibration): { floor: number; shortFloor: number; lexicalFloor: number } {
  const { probes } = calibration;
  return {
    floor: floorAbove(probes.filter((r) => !isShort(r)).map((r) => r.bestCosine)),
    shortFloor: floorAbove(probes.filter(isShort).map((r) => r.bestCosine)),
    lexicalFloor: floorAbove(probes.map((r) => r.bestWordCosine)),
  };
}

const shortCell = (text: string) => cell(text, 60);
const answered = (reading: FloorReading) => reading.basis === 'similarity' || reading.basis === 'words';

export function calibrationLines(calibration: Calibration): string[] {
  const { scale } = calibration;
  const rule = calibratedFloors(calibration);
  const extreme = (readings: FloorReading[], value: (r: FloorReading) => number, pick: 'lowest' | 'highest') => {
    const finite = readings.filter((r) => Number.isFinite(value(r)));
    if (finite.length === 0) return '-';
    const r = finite.reduce((best, x) => ((pick === 'lowest' ? value(x) < value(best) : value(x) > value(best)) ? x : best));
    return `${f3(value(r))} (${shortCell(r.text)}, ${r.kind})`;
  };
  const unanswered = calibration.queries.filter((r) => !answered(r));
  const heldAnswered = calibration.holdout.filter(answered);
  return [
    '### Floor calibration',
    '',
    `In force: floor **${scale.floor}** (a query whose best record reaches it is answered), lexical floor **${scale.lexicalFloor}** (a query is also answered, from`,
    `this cosine up, when a record its words match in full reaches it), upper reference (relevance 1) **${scale.upper}**. By the calibration rule`,
    `(0.005 above the highest calibration probe, rounded up to 0.001) this run gives a floor of ${rule.floor} and a lexical floor of ${rule.lexicalFloor}.`,
    'The calibration probes (`off_topic_probes`) set the floors; the held-out probes (`off_topic_holdout`) never moved them. Identifier queries are left out (an identifier answers them, not a cosine).',
    '',
    table(
      ['', 'best cosine of any record', 'best cosine among the full keyword matches'],
      [
        [
          'labelled queries: lowest',
          extreme(calibration.queries, (r) => r.bestCosine, 'lowest'),
          extreme(calibration.queries, (r) => r.bestWordCosine, 'lowest'),
        ],
        [
          'calibration probes: highest',
          extreme(calibration.probes, (r) => r.bestCosine, 'highest'),
          extreme(calibration.probes, (r) => r.bestWordCosine, 'highest'),
        ],
        [
          'held-out probes: highest',
          extreme(calibration.holdout, (r) => r.bestCosine, 'highest'),
          extreme(calibration.holdout, (r) => r.bestWordCosine, 'highest'),
        ],
      ],
    ),
    '',
    unanswered.length === 0
      ? `Every labelled query (${calibration.queries.length}, identifiers aside) clears a floor: ${calibration.queries.filter((r) => r.basis === 'words').length} on their words, the rest on similarity alone.`
      : `Labelled queries that clear neither floor (${unanswered.length}): ${unanswered.map((r) => `"${r.text}" (${r.kind}, best ${f3(r.bestCosine)})`).join('; ')}.`,
    '',
    heldAnswered.length === 0
      ? `No held-out probe (of ${new Set(calibration.holdout.map((r) => r.text)).size}) clears a floor.`
      : `Held-out probes that clear a floor, so semantic and hybrid search answer them: ${heldAnswered.map((r) => `"${r.text}" (${r.kind}, ${r.basis}: best ${f3(r.bestCosine)}, words ${f3(r.bestWordCosine)})`).join('; ')}.`,
  ];
}
