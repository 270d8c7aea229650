import type { ResourceKind } from '../../core/records';
import { fuseHybrid } from '../../core/search/fusion';
import { IDENTIFIER_FIELD_STEP, identifierScoreOf } from '../../core/search/identifiers';
import { keywordTermsOf } from '../../core/search/keyword-query';
import { type QueryFloor, queryFloorOf } from '../../core/search/query-floor';
import { relevanceOfCosine } from '../../core/search/relevance';
import type { SemanticQuery } from '../../ports/search-index';
import type { IdOrder } from './id-order';
import { type Ranking, unsortedRanking } from './ranked-set';
import { andInto, bitmapOfRows, countBits, type RowBitmap, rowsOfBitmap } from './row-bitmap';
import type { SqliteKeywordMatcher } from './sqlite-keyword-match';
import type { Matches } from './vector-matrix';
import type { VectorSearch } from './vector-scans';

/**
 * How the embedded index finds a search's whole result set in each mode: keyword (identifier
 * matches, then BM25 as Lucene scores it), semantic (an exact scan of every vector, above the query's
 * floor) and hybrid (both, fused), as a ranked set (ranked-set.ts) that pages put in order as far as
 * they need. Keyword and semantic sets are made over the whole catalogue and narrowed to a query's
 * filters, which keeps their order: a record's place depends on its own score and id alone, so one
 * query text tried with many filters (a user narrowing a search) is scored once. Hybrid fuses the
 * two narrowed lists. The index (sqlite-search-index.ts) caches the sets (cached-rankings.ts) and
 * pages through them.
 */

export interface RankerParts {
  keywordMatcher: SqliteKeywordMatcher;
  vectors: VectorSearch;
  idOrders: Record<ResourceKind, IdOrder>;
}

/**
 * A text's scan over a whole kind: every record at or above the scale's lexical floor (the least
 * any query's floor can be), as the scan found them, and as a bitmap; CachedRankings keeps one per
 * text, for the floor and the sets of both vector modes.
 */
export interface FloorMatches {
  found: Matches;
  bits: RowBitmap;
  /** The best cosine of the scan (NaN when nothing reached the lexical floor). */
  best: number;
}

/** The least cosine any floor of the query may ask for: the lexical floor, or a fixed floor below it. */
export function scanFloorOf(semantic: SemanticQuery): number {
  return Math.min(semantic.scale.lexicalFloor, semantic.fixedFloor ?? Number.POSITIVE_INFINITY);
}

export class SearchRankers {
  constructor(private readonly parts: RankerParts) {}

  /** How many records of the kind there are. */
  size(kind: ResourceKind): number {
    return this.parts.idOrders[kind].get().rowidAt.length;
  }

  /** Every record of the kind whose cosine with the text reaches the scan floor (none without a vector): one scan. */
  async floorMatches(kind: ResourceKind, semantic: SemanticQuery): Promise<FloorMatches> {
    const found = semantic.vector
      ? await this.parts.vectors.matchesAbove(kind, semantic.vector, scanFloorOf(semantic))
      : { rowids: new Int32Array(0), cosines: new Float32Array(0) };
    let best = Number.NaN;
    for (let i = 0; i < found.cosines.length; i++) if (!(found.cosines[i]! <= best)) best = found.cosines[i]!;
    return { found, bits: bitmapOfRows(found.rowids), best };
  }

  /**
   * The query's floor (query-floor.ts) from the whole kind: the scan's best cosine, the best cosine
   * among the records its words match in full, and how many records an identifier matches.
   */
  queryFloor(kind: ResourceKind, text: string, semantic: SemanticQuery, scan: FloorMatches): QueryFloor {
    const { keywordMatcher } = this.parts;
    const identifiers = keywordMatcher.identifierMatches(kind, text).rowids.length;
    const keywords = keywordMatcher.keywordQuery(kind, text);
    let bestWordCosine = Number.NaN;
    // Words only speak for a query all of whose words the catalogue knows: "pizza delivery" would otherwise be "delivery".
    if (keywords && keywords.counted.length === keywords.terms.length && scan.found.rowids.length > 0) {
      const full = keywordMatcher.matching(kind, keywords, false).sets.full;
      andInto(full, scan.bits);
      if (countBits(full) > 0) {
        const { rowids, cosines } = scan.found;
        for (let i = 0; i < rowids.length; i++) {
          const rowid = rowids[i]!;
          if (((full[rowid >>> 5] ?? 0) & (1 << (rowid & 31))) !== 0 && !(cosines[i]! <= bestWordCosine)) bestWordCosine = cosines[i]!;
        }
      }
    }
    return queryFloorOf({ bestCosine: scan.best, bestWordCosine, identifierMatches: identifiers, words: keywordTermsOf(text).length }, semantic.scale);
  }

  /** The scan's records at or above the query's floor (none when it has none), with their relevance. */
  semantic(kind: ResourceKind, semantic: SemanticQuery, scan: FloorMatches, floor: QueryFloor): Ranking {
    const ids = this.parts.idOrders[kind].get();
    if (floor.semanticFloor === null) return unsortedRanking(noMatches(), ids);
    const found = matchesAtLeast(scan.found, floor.semanticFloor);
    return unsortedRanking({ rowids: found.rowids, scores: found.cosines }, ids, (cosine) => relevanceOfCosine(cosine, semantic.scale));
  }

  /** The keyword matches and the semantic matches (each already narrowed to the filters), fused (lambdas/core/search/fusion.ts): the result set is their union. */
  hybrid(kind: ResourceKind, keyword: Ranking, similar: Ranking, semantic: SemanticQuery): Ranking {
    const ids = this.parts.idOrders[kind].get();
    const fused = fuseHybrid(
      Array.from(keyword.rowids, (rowid, i) => ({ key: rowid, score: keyword.scores[i]! })),
      Array.from(similar.rowids, (rowid, i) => ({ key: rowid, cosine: similar.scores[i]! })),
      semantic.scale,
    );
    return unsortedRanking({ rowids: Int32Array.from(fused, (hit) => hit.key), scores: Float32Array.from(fused, (hit) => hit.score) }, ids, (score) =>
      Math.min(1, score),
    );
  }

  /**
   * Every keyword match (keyword-query.ts) with its score: identifier matches first (by field
   * weight, then BM25, kept apart by score offsets: identifiers.ts), then every other full or
   * partial match by its BM25 alone, as Lucene ranks them. With `among`, only the matches whose bit is set. The matches are found
   * as bitmaps and only those kept are given their BM25 (keyword-match-sets.ts).
   */
  keyword(kind: ResourceKind, text: string, among?: RowBitmap): Ranking {
    const { keywordMatcher, idOrders } = this.parts;
    const ids = idOrders[kind].get();
    const identifiers = keywordMatcher.identifierMatches(kind, text);
    const keywords = keywordMatcher.keywordQuery(kind, text);
    const weightOf = new Map<number, number>();
    identifiers.rowids.forEach((rowid, i) => {
      if (!among || hasBit(among, rowid)) weightOf.set(rowid, identifiers.weights[i]!);
    });
    const matching = keywords ? keywordMatcher.matching(kind, keywords, true) : null;
    const full = matching?.sets.full ?? new Uint32Array(0);
    const partial = matching?.sets.partial ?? new Uint32Array(0);
    if (among) {
      andInto(full, among);
      andInto(partial, among);
    }
    // A record's score: an identifier match's offset (identifiers.ts), then its BM25.
    const offsetOf = new Map<number, number>();
    for (const rowid of rowsOfBitmap(partial)) offsetOf.set(rowid, 0);
    for (const rowid of rowsOfBitmap(full)) offsetOf.set(rowid, 0);
    for (const [rowid, weight] of weightOf) offsetOf.set(rowid, identifierScoreOf(weight));
    const rowids = Int32Array.from(offsetOf.keys()).sort();
    const bm25 = matching ? matching.scoresOf(rowids) : new Float32Array(rowids.length);
    const scores = Float32Array.from(rowids, (rowid, i) => offsetOf.get(rowid)! + Math.min(bm25[i]!, MAX_BM25));
    return unsortedRanking({ rowids, scores }, ids);
  }
}

/** Kept under an identifier field's step, so identifier matches keep their fields' order. */
const MAX_BM25 = IDENTIFIER_FIELD_STEP - 1;

const hasBit = (bits: RowBitmap, rowid: number) => ((bits[rowid >>> 5] ?? 0) & (1 << (rowid & 31))) !== 0;

const noMatches = () => ({ rowids: new Int32Array(0), scores: new Float32Array(0) });

/** The matches whose cosine reaches the floor (NaN, no vector, does not). */
function matchesAtLeast(matches: Matches, floor: number): Matches {
  const kept: number[] = [];
  for (let i = 0; i < matches.rowids.length; i++) if (matches.cosines[i]! >= floor) kept.push(i);
  return { rowids: Int32Array.from(kept, (i) => matches.rowids[i]!), cosines: Float32Array.from(kept, (i) => matches.cosines[i]!) };
}
