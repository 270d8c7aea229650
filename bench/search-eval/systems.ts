/**
 * The four systems the evaluation compares, behind one shape: the service's three search modes,
 * called through the list endpoints' own code with the default filters, and the BM25 baseline over
 * the same collection.
 */
import { type ListQuery, parseListQuery, SEARCH_MODES, type SearchMode } from '../../lambdas/core/query/list-query';
import { listRecords } from '../../lambdas/core/use-cases/list-records';
import type { EmbeddedStack } from '../../local/embedded-stack';
import { type Bm25Index, buildBm25Index } from './bm25-baseline';
import type { Collection, OpportunityKind } from './collection';
import { type EvalScope, scopeParams } from './scope';

export const SYSTEMS = [...SEARCH_MODES, 'baseline'] as const;
export type SystemName = SearchMode | 'baseline';

export interface RankedHit {
  id: string;
  title: string;
  /** The service's relevance (semantic and hybrid), or the baseline's raw BM25 score. */
  relevance: number | null;
}

export interface SystemAnswer {
  hits: RankedHit[];
  total: number;
  ms: number;
}

export type SearchSystem = (kind: OpportunityKind, text: string, depth: number) => Promise<SystemAnswer>;

export function serviceSystem(stack: EmbeddedStack, mode: SearchMode, today: string, scope: EvalScope): SearchSystem {
  return async (kind, text, depth) => {
    const query = parseListQuery(kind, { ...scopeParams(kind, scope), search: [text], search_mode: [mode], limit: [String(depth)] }, today) as ListQuery & {
      kind: OpportunityKind;
    };
    const started = performance.now();
    const { results, total } = await listRecords(stack.services, query);
    const ms = performance.now() - started;
    return { hits: results.map((r) => ({ id: r.id, title: r.title, relevance: r.relevance ?? null })), total, ms };
  };
}

export function baselineSystem(collections: Record<OpportunityKind, Collection>): SearchSystem {
  const indexes = new Map<OpportunityKind, Bm25Index>();
  for (const kind of ['grant', 'contract'] as const) {
    const records = [...collections[kind].records.values()];
    indexes.set(kind, buildBm25Index(records.map((r) => ({ id: r.id, title: r.title, description: r.description }))));
  }
  return async (kind, text, depth) => {
    const started = performance.now();
    const all = indexes.get(kind)!.search(text);
    const ms = performance.now() - started;
    const records = collections[kind].records;
    return { hits: all.slice(0, depth).map((h) => ({ id: h.id, title: records.get(h.id)!.title, relevance: h.score })), total: all.length, ms };
  };
}

export function allSystems(
  stack: EmbeddedStack,
  collections: Record<OpportunityKind, Collection>,
  today: string,
  scope: EvalScope,
): Record<SystemName, SearchSystem> {
  return {
    keyword: serviceSystem(stack, 'keyword', today, scope),
    semantic: serviceSystem(stack, 'semantic', today, scope),
    hybrid: serviceSystem(stack, 'hybrid', today, scope),
    baseline: baselineSystem(collections),
  };
}
