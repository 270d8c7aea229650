/**
 * Labelled queries scored against the searchable collection. Judged records outside the
 * collection (closed or lapsed on the evaluation date) are dropped before any metric, for every
 * system alike, as TREC-style evaluations drop judgements of documents not in the collection: a
 * record no system may return would otherwise cap every system's nDCG and recall below 1.
 */

import type { Collection, OpportunityKind } from './collection';
import { cappedRecallAt, mean, ndcgAt, recallAt } from './metrics';
import { type SearchSystem, SYSTEMS, type SystemAnswer, type SystemName } from './systems';

export interface Judgement {
  source: string;
  source_id: string;
  grade: number;
  title: string;
}

/** natural: a need in a sentence; short: one or two words; identifier: an opportunity, listing, solicitation or industry code. */
export const QUERY_CATEGORIES = ['natural', 'short', 'identifier'] as const;
export type QueryCategory = (typeof QUERY_CATEGORIES)[number];
/**
 * tuning: looked at while search was changed; holdout: never tuned on, reported apart (the targets are theirs);
 * fresh: written and judged after the holdout set was read at a final run, for ranking work after it (issue 39).
 */
export const QUERY_SETS = ['tuning', 'holdout', 'fresh'] as const;
export type QuerySet = (typeof QUERY_SETS)[number];

export interface LabelledQuery {
  id: string;
  query: string;
  kind: OpportunityKind;
  category: QueryCategory;
  set: QuerySet;
  judgements: Judgement[];
}

/** scored: counts in the means; unjudged: no judgements yet; no-relevant: none graded 1+ is in the collection. */
export type QueryStatus = 'scored' | 'unjudged' | 'no-relevant';

export interface SystemScore {
  ndcg10: number;
  recall50: number;
  /** Recall@50 against what 50 results can hold (metrics.ts cappedRecallAt). */
  cappedRecall50: number;
  total: number;
  ms: number;
  /** Results (within the depth read) that are not in the default listing: a service inconsistency. */
  outside: number;
  /** The grade of the first result (0 when unjudged, null when there is none). */
  topGrade: number | null;
}

export interface QueryScore {
  id: string;
  query: string;
  kind: OpportunityKind;
  category: QueryCategory;
  set: QuerySet;
  status: QueryStatus;
  /** Judgements of records in the collection, and of records outside it (dropped). */
  kept: number;
  dropped: number;
  /** Records in the collection judged 1 or more. */
  relevant: number;
  bySystem: Record<SystemName, SystemScore>;
}

export interface ScoredRun {
  scores: QueryScore[];
  /** Each labelled query's answers, for the pool. */
  answers: Map<string, Record<SystemName, SystemAnswer>>;
  /** Each labelled query's grades by record id, all judgements (in the collection or not). */
  grades: Map<string, Map<string, number>>;
}

export async function scoreQueries(
  queries: readonly LabelledQuery[],
  idsBySource: Record<OpportunityKind, Map<string, string>>,
  collections: Record<OpportunityKind, Collection>,
  systems: Record<SystemName, SearchSystem>,
  depth: number,
): Promise<ScoredRun> {
  const run: ScoredRun = { scores: [], answers: new Map(), grades: new Map() };
  for (const labelled of queries) {
    const all = new Map<string, number>();
    for (const judgement of labelled.judgements) {
      const id = idsBySource[labelled.kind].get(`${judgement.source}|${judgement.source_id}`);
      if (!id) throw new Error(`query ${labelled.id}: no ${labelled.kind} ${judgement.source} ${judgement.source_id} (${judgement.title}) in the catalogue`);
      all.set(id, Math.max(all.get(id) ?? 0, judgement.grade));
    }
    const collection = collections[labelled.kind].records;
    const kept = new Map([...all].filter(([id]) => collection.has(id)));
    const relevant = [...kept.values()].filter((grade) => grade >= 1).length;
    const status: QueryStatus = labelled.judgements.length === 0 ? 'unjudged' : relevant === 0 ? 'no-relevant' : 'scored';

    const answers = {} as Record<SystemName, SystemAnswer>;
    const bySystem = {} as Record<SystemName, SystemScore>;
    for (const system of SYSTEMS) {
      const answer = await systems[system](labelled.kind, labelled.query, depth);
      const ranked = answer.hits.map((hit) => hit.id);
      answers[system] = answer;
      bySystem[system] = {
        ndcg10: ndcgAt(10, ranked, kept),
        recall50: recallAt(depth, ranked, kept),
        cappedRecall50: cappedRecallAt(depth, ranked, kept),
        total: answer.total,
        ms: answer.ms,
        outside: ranked.filter((id) => !collection.has(id)).length,
        topGrade: ranked.length === 0 ? null : (all.get(ranked[0]!) ?? 0),
      };
    }
    run.answers.set(labelled.id, answers);
    run.grades.set(labelled.id, all);
    run.scores.push({
      id: labelled.id,
      query: labelled.query,
      kind: labelled.kind,
      category: labelled.category,
      set: labelled.set,
      status,
      kept: kept.size,
      dropped: all.size - kept.size,
      relevant,
      bySystem,
    });
  }
  return run;
}

export interface SystemSummary {
  ndcg10: number;
  recall50: number;
  cappedRecall50: number;
  /** Null when no query of the kind is scored. */
  ndcg10Grants: number | null;
  ndcg10Contracts: number | null;
  /** Scored queries with no result, and labelled queries (judged or not) with no result. */
  noResultScored: number;
  noResultLabelled: number;
  outside: number;
}

export function summarise(scores: readonly QueryScore[], system: SystemName): SystemSummary {
  const scored = scores.filter((s) => s.status === 'scored');
  const of = (kind?: OpportunityKind) => scored.filter((s) => !kind || s.kind === kind).map((s) => s.bySystem[system]);
  const meanOrNull = (values: number[]) => (values.length === 0 ? null : mean(values));
  return {
    ndcg10: mean(of().map((m) => m.ndcg10)),
    recall50: mean(of().map((m) => m.recall50)),
    cappedRecall50: mean(of().map((m) => m.cappedRecall50)),
    ndcg10Grants: meanOrNull(of('grant').map((m) => m.ndcg10)),
    ndcg10Contracts: meanOrNull(of('contract').map((m) => m.ndcg10)),
    noResultScored: of().filter((m) => m.total === 0).length,
    noResultLabelled: scores.filter((s) => s.bySystem[system].total === 0).length,
    outside: scores.reduce((sum, s) => sum + s.bySystem[system].outside, 0),
  };
}
