import type { Facets } from '../../core/query/facets';
import type { ResourceKind } from '../../core/records';
import { relevanceOfCosine } from '../../core/search/relevance';
import type { SemanticQuery } from '../../ports/search-index';
import type { IdOrder } from './id-order';
import { fuseByRowid } from './rowid-fusion';
import { rankedTier, type KeywordMatches, type SqliteKeywordMatcher } from './sqlite-keyword-match';
import { rowsOfBitmap, type RowBitmap } from './row-bitmap';
import { matchesIn, rankMatches, type Matches, type VectorMatrix } from './vector-matrix';

/**
 * How the embedded index ranks a search's whole result set in each mode: keyword (FTS5's BM25 in
 * tiers), semantic (exact k-NN over the vector matrix) and hybrid (both, fused by rowid). Keyword
 * and semantic rankings are made over the whole catalogue and narrowed to a query's filters by
 * `rankingWithin`, which keeps their order: a record's place depends on its own score and id
 * alone, so the filtered ranking is the whole one with the others left out, and one query text
 * tried with many filters (a user narrowing a search) is scored once. Hybrid fuses the two
 * narrowed lists, since fusion scales BM25 by the best keyword match among those the filters
 * keep. The index (sqlite-search-index.ts) caches the rankings and pages through them.
 */

/**
 * A ranked result set: rowids best first, with their relevance in semantic and hybrid modes, and
 * the scores they are ranked by (the first `tierEnd` a tier above the rest: keyword full matches).
 */
export type Ranking = {
  rowids: Int32Array; relevance?: Float32Array; scores: Float32Array; tierEnd: number;
  /** Made once a ranking is paged through in a field order, or asked for facets; a write discards them with it. */
  positionOf?: Map<number, number>; facets?: Map<string, Facets>; bits?: RowBitmap;
};

export interface RankerParts {
  keywordMatcher: SqliteKeywordMatcher;
  vectors: Record<ResourceKind, VectorMatrix>;
  idOrders: Record<ResourceKind, IdOrder>;
}

export class SearchRankers {
  constructor(private readonly parts: RankerParts) {}

  /** How many records of the kind there are. */
  size(kind: ResourceKind): number {
    return this.parts.idOrders[kind].get().rowidAt.length;
  }

  /**
   * Every record whose cosine reaches the floor, best first (ties by id), with its relevance. With
   * `among`, only the rows whose bit is set are scored, one SIMD product each: cheaper than the
   * product over every vector when the filters keep few rows (CachedRankings decides).
   */
  async semantic(kind: ResourceKind, semantic: SemanticQuery, options: { cosinesByRowid?: Float32Array; among?: RowBitmap } = {}): Promise<Ranking> {
    if (!semantic.vector) return emptyRanking();
    const { vectors, idOrders } = this.parts;
    let found: Matches;
    if (options.among) {
      const rowids = rowsOfBitmap(options.among);
      found = matchesAtLeast({ rowids, cosines: vectors[kind].cosinesOf(rowids, semantic.vector) }, semantic.scale.floor);
    } else {
      found = matchesIn(options.cosinesByRowid ?? (await vectors[kind].cosinesByRowid(semantic.vector)), semantic.scale.floor);
    }
    const matches = rankMatches(found, idOrders[kind].get());
    return { rowids: matches.rowids, relevance: matches.cosines.map((cosine) => relevanceOfCosine(cosine, semantic.scale)), scores: matches.cosines, tierEnd: matches.rowids.length };
  }

  /** The keyword and the semantic ranking of one text, from one product over every vector (it serves the keyword gate too). */
  async keywordAndSemantic(kind: ResourceKind, text: string, semantic: SemanticQuery): Promise<{ keyword: Ranking; semantic: Ranking }> {
    const cosines = semantic.vector ? await this.parts.vectors[kind].cosinesByRowid(semantic.vector) : undefined;
    return { keyword: this.keyword(kind, text, semantic, { cosinesByRowid: cosines }), semantic: await this.semantic(kind, semantic, { cosinesByRowid: cosines }) };
  }

  /** The keyword matches and the semantic matches (each already narrowed to the filters), fused (lambdas/core/search/fusion.ts): the result set is their union. */
  hybrid(kind: ResourceKind, keyword: Ranking, similar: Ranking, semantic: SemanticQuery): Ranking {
    const ranked = fuseByRowid(keyword, { rowids: similar.rowids, cosines: similar.scores }, semantic.scale, this.parts.idOrders[kind].get());
    return { rowids: ranked.rowids, relevance: ranked.cosines, scores: ranked.cosines, tierEnd: ranked.rowids.length };
  }

  /**
   * The keyword matches, best first, with their BM25: full matches, then partial ones, each tier
   * by BM25 (ties by id). With a query vector and a scale that gates keywords, a match's cosine
   * must reach the floor (a record that shares words with the query but is about something else
   * is no match), and partial matches are admitted; otherwise every full match stays and no
   * partial one does. With `among`, only the matches whose bit is set are kept, before the gate.
   */
  keyword(kind: ResourceKind, text: string, semantic?: SemanticQuery, options: { cosinesByRowid?: Float32Array; among?: RowBitmap } = {}): Ranking {
    const { cosinesByRowid, among } = options;
    const { keywordMatcher, vectors, idOrders } = this.parts;
    const gate = semantic?.vector && semantic.scale.gatesKeywords ? { vector: semantic.vector, floor: semantic.scale.floor } : null;
    const keywords = keywordMatcher.keywordQuery(kind, text);
    if (!keywords) return emptyRanking();
    const matches = keywordMatcher.matches(kind, keywords, gate !== null);
    const tier = (found: KeywordMatches['full']) => rankedTier(among ? matchesWithin(found, among) : found, {
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
}

const emptyRanking = (): Ranking => ({ rowids: new Int32Array(0), scores: new Float32Array(0), tierEnd: 0 });

const hasBit = (bits: RowBitmap, rowid: number) => ((bits[rowid >>> 5] ?? 0) & (1 << (rowid & 31))) !== 0;

/** Keyword matches whose bit is set, in their order. */
function matchesWithin(found: KeywordMatches['full'], bits: RowBitmap): KeywordMatches['full'] {
  const kept: number[] = [];
  for (let i = 0; i < found.rowids.length; i++) if (hasBit(bits, found.rowids[i]!)) kept.push(i);
  return { rowids: Int32Array.from(kept, (i) => found.rowids[i]!), scores: Float32Array.from(kept, (i) => found.scores[i]!) };
}

/** The matches whose cosine reaches the floor (NaN, no vector, does not). */
function matchesAtLeast(matches: Matches, floor: number): Matches {
  const kept: number[] = [];
  for (let i = 0; i < matches.rowids.length; i++) if (matches.cosines[i]! >= floor) kept.push(i);
  return { rowids: Int32Array.from(kept, (i) => matches.rowids[i]!), cosines: Float32Array.from(kept, (i) => matches.cosines[i]!) };
}

/** The ranking's records whose bit is set (the rows passing a query's filters), in its order. */
export function rankingWithin(ranking: Ranking, bits: RowBitmap): Ranking {
  const { rowids: all, scores: allScores, relevance: allRelevance } = ranking;
  const rowids = new Int32Array(all.length);
  const scores = new Float32Array(all.length);
  const relevance = allRelevance ? new Float32Array(all.length) : undefined;
  let count = 0;
  let tierEnd = 0;
  for (let i = 0; i < all.length; i++) {
    const rowid = all[i]!;
    if (!hasBit(bits, rowid)) continue;
    rowids[count] = rowid;
    scores[count] = allScores[i]!;
    if (relevance) relevance[count] = allRelevance![i]!;
    count++;
    if (i < ranking.tierEnd) tierEnd = count;
  }
  return {
    rowids: rowids.slice(0, count), scores: scores.slice(0, count), tierEnd,
    ...(relevance ? { relevance: relevance.slice(0, count) } : {}),
  };
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
