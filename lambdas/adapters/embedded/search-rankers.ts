import type { Facets } from '../../core/query/facets';
import type { ResourceKind } from '../../core/records';
import { relevanceOfCosine } from '../../core/search/relevance';
import type { SemanticQuery } from '../../ports/search-index';
import type { IdOrder } from './id-order';
import { fuseByRowid } from './rowid-fusion';
import { rankedTier, type KeywordMatches, type SqliteKeywordMatcher } from './sqlite-keyword-match';
import { matchesIn, rankMatches, type Matches, type VectorMatrix } from './vector-matrix';

/**
 * How the embedded index ranks a search's whole result set in each mode: keyword (FTS5's BM25 in
 * tiers), semantic (exact k-NN over the vector matrix) and hybrid (both, fused by rowid). The
 * index (sqlite-search-index.ts) plans the filters, caches the rankings and pages through them.
 */

/**
 * A ranked result set: rowids best first, with their relevance in semantic and hybrid modes, and
 * the scores they are ranked by (the first `tierEnd` a tier above the rest: keyword full matches).
 */
export type Ranking = {
  rowids: Int32Array; relevance?: Float32Array; scores: Float32Array; tierEnd: number;
  /** Made once a ranking is paged through in a field order, or asked for facets; a write discards them with it. */
  positionOf?: Map<number, number>; facets?: Map<string, Facets>;
};

/** The rows passing the query's filters (1 per rowid), made only when a ranking needs it; undefined when there are no filters. */
export type MaskOf = () => Uint8Array | undefined;

export interface RankerParts {
  keywordMatcher: SqliteKeywordMatcher;
  vectors: Record<ResourceKind, VectorMatrix>;
  idOrders: Record<ResourceKind, IdOrder>;
}

export class SearchRankers {
  constructor(private readonly parts: RankerParts) {}

  async semantic(kind: ResourceKind, mask: MaskOf, semantic: SemanticQuery): Promise<Ranking> {
    const matches = await this.semanticMatches(kind, mask, semantic);
    return { rowids: matches.rowids, relevance: matches.cosines.map((cosine) => relevanceOfCosine(cosine, semantic.scale)), scores: matches.cosines, tierEnd: matches.rowids.length };
  }

  /** The keyword matches and the semantic matches, fused (lambdas/core/search/fusion.ts): the result set is their union. */
  async hybrid(kind: ResourceKind, text: string, mask: MaskOf, semantic: SemanticQuery): Promise<Ranking> {
    // One product over every vector serves both lists: the semantic matches and the keyword matches' gate.
    const cosines = semantic.vector ? await this.parts.vectors[kind].cosinesByRowid(semantic.vector) : undefined;
    const keyword = this.keyword(kind, text, mask, semantic, cosines);
    const similar = await this.semanticMatches(kind, mask, semantic, cosines);
    const ranked = fuseByRowid(keyword, similar, semantic.scale, this.parts.idOrders[kind].get());
    return { rowids: ranked.rowids, relevance: ranked.cosines, scores: ranked.cosines, tierEnd: ranked.rowids.length };
  }

  /**
   * The keyword matches passing the filters, best first, with their BM25: full matches, then
   * partial ones, each tier by BM25 (ties by id). With a query vector and a scale that gates
   * keywords, a match's cosine must reach the floor (a record that shares words with the query but
   * is about something else is no match), and partial matches are admitted; otherwise every full
   * match stays and no partial one does. BM25 must score every match to find the best 20 anyway,
   * so the total and every later page come from the same pass.
   */
  keyword(kind: ResourceKind, text: string, mask: MaskOf, semantic?: SemanticQuery, cosinesByRowid?: Float32Array): Ranking {
    const { keywordMatcher, vectors, idOrders } = this.parts;
    const gate = semantic?.vector && semantic.scale.gatesKeywords ? { vector: semantic.vector, floor: semantic.scale.floor } : null;
    const keywords = keywordMatcher.keywordQuery(kind, text);
    if (!keywords) return { rowids: new Int32Array(0), scores: new Float32Array(0), tierEnd: 0 };
    const matches = keywordMatcher.matches(kind, keywords, gate !== null);
    const filter = mask();
    const tier = (found: KeywordMatches['full']) => rankedTier(found, {
      mask: filter,
      floor: gate?.floor,
      cosinesOf: (rowids) => (cosinesByRowid ? Float32Array.from(rowids, (rowid) => cosinesByRowid[rowid] ?? Number.NaN) : vectors[kind].cosinesOf(rowids, gate!.vector)),
      ids: idOrders[kind].get(),
    });
    const full = tier(matches.full);
    if (!gate) return { ...full, tierEnd: full.rowids.length };
    const partial = tier(matches.partial);
    const rowids = new Int32Array(full.rowids.length + partial.rowids.length);
    const scores = new Float32Array(rowids.length);
    rowids.set(full.rowids);
    rowids.set(partial.rowids, full.rowids.length);
    scores.set(full.scores);
    scores.set(partial.scores, full.rowids.length);
    return { rowids, scores, tierEnd: full.rowids.length };
  }

  /** Every record passing the filters whose cosine reaches the floor, best first (ties by id), with its cosine. */
  private async semanticMatches(kind: ResourceKind, mask: MaskOf, semantic: SemanticQuery, cosinesByRowid?: Float32Array): Promise<Matches> {
    if (!semantic.vector) return { rowids: new Int32Array(0), cosines: new Float32Array(0) };
    const cosines = cosinesByRowid ?? (await this.parts.vectors[kind].cosinesByRowid(semantic.vector));
    return rankMatches(matchesIn(cosines, semantic.scale.floor, mask()), this.parts.idOrders[kind].get());
  }
}

/** The ranked set's records among `wanted` ids (ListQuery.ids), in its order, with their relevance. */
export function rankingAmong(ranking: Ranking, wanted: ReadonlySet<string>, idOf: (rowid: number) => string): Ranking {
  const kept: number[] = [];
  for (let i = 0; i < ranking.rowids.length; i++) if (wanted.has(idOf(ranking.rowids[i]!))) kept.push(i);
  return {
    rowids: Int32Array.from(kept, (i) => ranking.rowids[i]!),
    ...(ranking.relevance ? { relevance: Float32Array.from(kept, (i) => ranking.relevance![i]!) } : {}),
    scores: Float32Array.from(kept, (i) => ranking.scores[i]!),
    tierEnd: kept.filter((i) => i < ranking.tierEnd).length,
  };
}
