/**
 * What the semantic floor is calibrated on: for each labelled query and each off-topic probe, the
 * best cosine any record of the collection reaches. A floor that answers every labelled query and
 * no probe lies between the probes' highest best cosine and the queries' lowest. The calibration
 * probes set the floor (lambdas/core/search/relevance.ts); the held-out probes were written after
 * it was set and never moved it, so how many of them clear it estimates how often an unseen
 * off-topic query would be answered.
 */
import { parseListQuery, type ListQuery } from '../../lambdas/core/query/list-query';
import type { SimilarityScale } from '../../lambdas/core/search/relevance';
import type { EmbeddedStack } from '../../local/embedded-stack';
import { cell, f3, table } from '../format';
import type { OpportunityKind } from './collection';
import type { LabelledQuery } from './judgements';
import { scopeParams, type EvalScope } from './scope';

/**
 * A scale on which every record matches and relevance is 0.75 + cosine / 4, exact over [-1, 1], so
 * the best cosine can be read back (to 0.0004, relevance having four decimals).
 */
const WHOLE_RANGE: SimilarityScale = { floor: -1, upper: 1, gatesKeywords: false };
const cosineOfWholeRange = (relevance: number) => 4 * relevance - 3;

export interface BestMatch {
  text: string;
  kind: OpportunityKind;
  cosine: number;
  title: string;
}

export interface Calibration {
  floor: number;
  queries: BestMatch[];
  probes: BestMatch[];
  holdout: BestMatch[];
}

const KINDS: readonly OpportunityKind[] = ['grant', 'contract'];

/** The record of the collection closest to a text, through the index port (the scope's filters, no floor). */
async function bestMatch(stack: EmbeddedStack, kind: OpportunityKind, text: string, today: string, scope: EvalScope): Promise<BestMatch> {
  const [vector] = await stack.services.embedder.embed([text], 'query');
  const query = parseListQuery(kind, { ...scopeParams(kind, scope), search: [text], search_mode: ['semantic'], limit: ['1'] }, today) as ListQuery & { kind: OpportunityKind };
  const { results } = await stack.services.index.query(kind, query, { vector: vector ?? null, scale: WHOLE_RANGE });
  const top = results[0];
  return { text, kind, cosine: top?.relevance === undefined ? Number.NaN : cosineOfWholeRange(top.relevance), title: top?.title ?? '' };
}

export async function calibrate(stack: EmbeddedStack, setup: { floor: number; today: string; scope: EvalScope }, queries: readonly LabelledQuery[], probes: readonly string[], holdout: readonly string[]): Promise<Calibration> {
  const { today, scope } = setup;
  const run = async (texts: readonly string[], kinds: (text: string) => readonly OpportunityKind[]) => {
    const found: BestMatch[] = [];
    for (const text of texts) for (const kind of kinds(text)) found.push(await bestMatch(stack, kind, text, today, scope));
    return found;
  };
  const kindOf = new Map(queries.map((q) => [q.query, q.kind]));
  return {
    floor: setup.floor,
    queries: await run(queries.map((q) => q.query), (text) => [kindOf.get(text)!]),
    probes: await run(probes, () => KINDS),
    holdout: await run(holdout, () => KINDS),
  };
}

const shortCell = (text: string) => cell(text, 70);

export function calibrationLines(calibration: Calibration): string[] {
  const { floor } = calibration;
  const highest = (matches: BestMatch[]) => matches.reduce<BestMatch | null>((best, m) => (best === null || m.cosine > best.cosine ? m : best), null);
  const lowest = (matches: BestMatch[]) => matches.reduce<BestMatch | null>((best, m) => (best === null || m.cosine < best.cosine ? m : best), null);
  const rows = KINDS.map((kind) => {
    const of = (matches: BestMatch[]) => matches.filter((m) => m.kind === kind);
    const query = lowest(of(calibration.queries));
    const probe = highest(of(calibration.probes));
    const held = of(calibration.holdout);
    return [
      kind,
      query ? `${f3(query.cosine)} (${shortCell(query.text)})` : '-',
      probe ? `${f3(probe.cosine)} (${shortCell(probe.text)})` : '-',
      `${held.filter((m) => m.cosine >= floor).length} of ${held.length}`,
    ];
  });
  const answeredHoldout = calibration.holdout.filter((m) => m.cosine >= floor).sort((a, b) => b.cosine - a.cosine);
  const heldProbes = new Set(calibration.holdout.map((m) => m.text)).size;
  return [
    '### Floor calibration',
    '',
    `The semantic floor in force is a cosine of **${floor}**. A query is answered (in any mode) only by records at or above it; below, the best`,
    'record of each labelled query (lowest of them) and of each off-topic probe (highest of them), over the same collection. The calibration',
    'probes (`off_topic_probes`) set the floor; the held-out probes (`off_topic_holdout`) were written after it was set and never moved it.',
    '',
    table(['kind', 'labelled queries: lowest best cosine', 'calibration probes: highest best cosine', 'held-out probes at or above the floor'], rows),
    '',
    answeredHoldout.length === 0
      ? `No held-out probe (of ${heldProbes}) reaches the floor.`
      : `Held-out probes whose best record reaches the floor, so semantic and hybrid search answer them (${new Set(answeredHoldout.map((m) => m.text)).size} of ${heldProbes}):`,
    ...(answeredHoldout.length === 0 ? [] : ['', table(['probe', 'kind', 'best cosine', 'best record'], answeredHoldout.map((m) => [shortCell(m.text), m.kind, f3(m.cosine), shortCell(m.title)]))]),
  ];
}
