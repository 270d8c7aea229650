/**
 * The judging pool (`--pool FILE`): for each labelled query, the union of every system's top
 * POOL_DEPTH, with what a human judge needs to grade a record without running any search, and the
 * grade it already has. Pooling the baseline with the service's modes keeps the judgements from
 * favouring the system that proposed the candidates.
 */
import { writeFileSync } from 'node:fs';
import type { Collection, OpportunityKind } from './collection';
import type { LabelledQuery } from './judgements';
import { SYSTEMS, type SystemAnswer, type SystemName } from './systems';

export const POOL_DEPTH = 20;
/** As much of the description as the service embeds: enough to judge most records. */
const DESCRIPTION_CHARS = 1500;

export interface PoolRecord {
  source: string;
  source_id: string | null;
  title: string;
  funder_name: string;
  categories: string[];
  description: string;
  /** 1-based rank in each system that returned it within the pool depth. */
  ranked_by: Partial<Record<SystemName, number>>;
  grade: number | null;
}

export interface PoolQuery {
  id: string;
  query: string;
  kind: OpportunityKind;
  judged: number;
  records: PoolRecord[];
}

export function judgingPool(
  queries: readonly LabelledQuery[],
  answers: ReadonlyMap<string, Record<SystemName, SystemAnswer>>,
  grades: ReadonlyMap<string, ReadonlyMap<string, number>>,
  collections: Record<OpportunityKind, Collection>,
): PoolQuery[] {
  return queries.map((labelled) => {
    const byId = new Map<string, PoolRecord>();
    const answer = answers.get(labelled.id)!;
    const graded = grades.get(labelled.id) ?? new Map<string, number>();
    for (const system of SYSTEMS) {
      answer[system].hits.slice(0, POOL_DEPTH).forEach((hit, rank) => {
        let entry = byId.get(hit.id);
        if (!entry) {
          // A result outside the collection is a service inconsistency; it is still shown to judges.
          const record = collections[labelled.kind].records.get(hit.id);
          entry = {
            source: record?.source ?? '(not in the default listing)',
            source_id: record?.source_id ?? null,
            title: record?.title ?? hit.title,
            funder_name: record?.funder_name ?? '',
            categories: record?.categories ?? [],
            description: (record?.description ?? '').slice(0, DESCRIPTION_CHARS),
            ranked_by: {},
            grade: graded.get(hit.id) ?? null,
          };
          byId.set(hit.id, entry);
        }
        entry.ranked_by[system] = rank + 1;
      });
    }
    // Best rank first, so a judge reads the likeliest candidates before the long tail.
    const bestRank = (r: PoolRecord) => Math.min(...Object.values(r.ranked_by));
    const records = [...byId.values()].sort((a, b) => bestRank(a) - bestRank(b) || a.title.localeCompare(b.title));
    return { id: labelled.id, query: labelled.query, kind: labelled.kind, judged: labelled.judgements.length, records };
  });
}

export function writePool(file: string, pool: PoolQuery[], setup: { evalDate: string; depth: number }): void {
  const body = {
    description: `For each labelled query of bench/search-eval/queries.json, the union of the top ${setup.depth} of keyword, semantic and hybrid search and the BM25 baseline on ${setup.evalDate}; grade is the existing judgement (null when unjudged).`,
    evaluation_date: setup.evalDate,
    queries: pool,
  };
  writeFileSync(file, `${JSON.stringify(body, null, 2)}\n`);
}
