import type { ResourceKind } from '../../core/records';
import { relevanceOfCosine } from '../../core/search/relevance';
import type { SemanticQuery } from '../../ports/search-index';
import type { IdOrder } from './id-order';
import { unsortedRanking, type Ranking } from './ranked-set';
import { fuseByRowid } from './rowid-fusion';
import type { SqliteKeywordMatcher } from './sqlite-keyword-match';
import { andInto, bitmapOfRows, countBits, rowsOfBitmap, type RowBitmap } from './row-bitmap';
import type { Matches } from './vector-matrix';
import type { VectorSearch } from './vector-scans';

/**
 * How the embedded index finds a search's whole result set in each mode: keyword (FTS5's BM25 in
 * tiers), semantic (exact k-NN over every vector) and hybrid (both, fused by rowid), as a ranked
 * set (ranked-set.ts) that pages put in order as far as they need. Keyword and semantic sets are
 * made over the whole catalogue and narrowed to a query's filters by `rankingWithin`, which keeps
 * their order: a record's place depends on its own score and id alone, so one query text tried
 * with many filters (a user narrowing a search) is scored once. Hybrid fuses the two narrowed
 * lists, since fusion scales BM25 by the best keyword match among those the filters keep. The
 * index (sqlite-search-index.ts) caches the sets (cached-rankings.ts) and pages through them.
 */

export interface RankerParts {
  keywordMatcher: SqliteKeywordMatcher;
  vectors: VectorSearch;
  idOrders: Record<ResourceKind, IdOrder>;
}

/**
 * A text's semantic matches over a whole kind (every record whose cosine reaches the floor), as
 * the vector scan found them, and as a bitmap for the keyword gate; CachedRankings keeps one per
 * text, for the sets of every mode.
 */
export interface FloorMatches {
  found: Matches;
  bits: RowBitmap;
}

export class SearchRankers {
  constructor(private readonly parts: RankerParts) {}

  /** How many records of the kind there are. */
  size(kind: ResourceKind): number {
    return this.parts.idOrders[kind].get().rowidAt.length;
  }

  /** Every record of the kind whose cosine with the text reaches the floor (none without a vector): one scan. */
  async floorMatches(kind: ResourceKind, semantic: SemanticQuery): Promise<FloorMatches> {
    const found = semantic.vector ? await this.parts.vectors.matchesAbove(kind, semantic.vector, semantic.scale.floor) : { rowids: new Int32Array(0), cosines: new Float32Array(0) };
    return { found, bits: bitmapOfRows(found.rowids) };
  }

  /**
   * Every record whose cosine reaches the floor, with its relevance: the whole kind's floor
   * matches, or, with `among`, those of the rows whose bit is set, scored alone (cheaper than a
   * scan of every vector when the filters keep few rows; CachedRankings decides).
   */
  async semantic(kind: ResourceKind, semantic: SemanticQuery, scope: { floor: FloorMatches } | { among: RowBitmap }): Promise<Ranking> {
    const ids = this.parts.idOrders[kind].get();
    if (!semantic.vector) return unsortedRanking(noMatches(), ids);
    let found: Matches;
    if ('among' in scope) {
      const rowids = rowsOfBitmap(scope.among);
      found = matchesAtLeast({ rowids, cosines: await this.parts.vectors.cosinesOf(kind, rowids, semantic.vector) }, semantic.scale.floor);
    } else {
      // A copy: the set is ordered in place, and the floor matches stay the scan's, for other modes.
      found = { rowids: scope.floor.found.rowids.slice(), cosines: scope.floor.found.cosines.slice() };
    }
    return unsortedRanking({ rowids: found.rowids, scores: found.cosines }, ids, found.rowids.length, (cosine) => relevanceOfCosine(cosine, semantic.scale));
  }

  /** The keyword matches and the semantic matches (each already narrowed to the filters), fused (lambdas/core/search/fusion.ts): the result set is their union. */
  hybrid(kind: ResourceKind, keyword: Ranking, similar: Ranking, semantic: SemanticQuery): Ranking {
    const ids = this.parts.idOrders[kind].get();
    const fused = fuseByRowid(keyword, { rowids: similar.rowids, cosines: similar.scores }, semantic.scale, ids.rankOf.length);
    return unsortedRanking({ rowids: fused.rowids, scores: fused.cosines }, ids, fused.rowids.length, (relevance) => relevance);
  }

  /**
   * The keyword matches with their BM25: full matches, then partial ones (a tier above the rest).
   * With a query vector and a scale that gates keywords, a match's cosine must reach the floor (a
   * record that shares words with the query but is about something else is no match), and partial
   * matches are admitted; otherwise every full match stays and no partial one does. With `among`,
   * only the matches whose bit is set are kept, before the gate.
   *
   * The gate reads the text's floor matches when they are at hand (`floor`), or when the matches
   * to test are many, from a scan of every vector (`scanFloor`); otherwise it scores the matches
   * alone, which costs less than the scan while they are fewer than FLOOR_SCAN_SHARE of the records.
   * The matches are found as bitmaps and only those kept are given their BM25 (keyword-match-sets.ts).
   */
  async keyword(kind: ResourceKind, text: string, semantic: SemanticQuery | undefined, scope: KeywordScope): Promise<Ranking> {
    const { keywordMatcher, vectors, idOrders } = this.parts;
    const ids = idOrders[kind].get();
    const gate = semantic?.vector && semantic.scale.gatesKeywords ? { vector: semantic.vector, floor: semantic.scale.floor } : null;
    const keywords = keywordMatcher.keywordQuery(kind, text);
    if (!keywords) return unsortedRanking(noMatches(), ids);
    const matching = keywordMatcher.matching(kind, keywords, gate !== null);
    const { full, partial } = matching.sets;
    if (scope.among) {
      andInto(full, scope.among);
      andInto(partial, scope.among);
    }
    let fullRows: Int32Array;
    let partialRows: Int32Array;
    if (!gate) {
      fullRows = rowsOfBitmap(full);
      partialRows = new Int32Array(0);
    } else {
      const manyToTest = () => countBits(full) + countBits(partial) > FLOOR_SCAN_SHARE * this.size(kind);
      const floor = scope.floor ?? (scope.scanFloor && manyToTest() ? await scope.scanFloor() : undefined);
      if (floor) {
        andInto(full, floor.bits);
        andInto(partial, floor.bits);
        fullRows = rowsOfBitmap(full);
        partialRows = rowsOfBitmap(partial);
      } else {
        const fullTested = rowsOfBitmap(full);
        const partialTested = rowsOfBitmap(partial);
        const tested = fullTested.length + partialTested.length;
        const rowids = new Int32Array(tested);
        rowids.set(fullTested);
        rowids.set(partialTested, fullTested.length);
        const cosines = await vectors.cosinesOf(kind, rowids, gate.vector);
        fullRows = rowsReaching(rowids, cosines, gate.floor, 0, fullTested.length);
        partialRows = rowsReaching(rowids, cosines, gate.floor, fullTested.length, tested);
      }
    }
    const rowids = new Int32Array(fullRows.length + partialRows.length);
    const scores = new Float32Array(rowids.length);
    rowids.set(fullRows);
    rowids.set(partialRows, fullRows.length);
    scores.set(matching.scoresOf(fullRows));
    scores.set(matching.scoresOf(partialRows), fullRows.length);
    return unsortedRanking({ rowids, scores }, ids, fullRows.length);
  }
}

/** How the keyword gate may learn which matches reach the floor (SearchRankers.keyword). */
export interface KeywordScope {
  among?: RowBitmap;
  /** The text's floor matches, when a scan made them already. */
  floor?: FloorMatches;
  /** A scan of every vector for them, when the matches to test are many. */
  scanFloor?: () => Promise<FloorMatches>;
}

/**
 * Past this share of a kind's records, keyword matches are tested against a scan of every vector
 * rather than scored alone: copying the rows out and scoring them costs about three times a row's
 * share of the scan (a scan reads every vector in order; the copy reads scattered ones).
 */
const FLOOR_SCAN_SHARE = 0.25;

const noMatches = () => ({ rowids: new Int32Array(0), scores: new Float32Array(0) });

/** The rows of rowids[from, to) whose cosine (cosines[i] is rowids[i]'s) reaches the floor (NaN, no vector, does not). */
function rowsReaching(rowids: Int32Array, cosines: Float32Array, floor: number, from: number, to: number): Int32Array {
  const kept = new Int32Array(to - from);
  let count = 0;
  for (let i = from; i < to; i++) if (cosines[i]! >= floor) kept[count++] = rowids[i]!;
  return kept.subarray(0, count);
}

/** The matches whose cosine reaches the floor (NaN, no vector, does not). */
function matchesAtLeast(matches: Matches, floor: number): Matches {
  const kept: number[] = [];
  for (let i = 0; i < matches.rowids.length; i++) if (matches.cosines[i]! >= floor) kept.push(i);
  return { rowids: Int32Array.from(kept, (i) => matches.rowids[i]!), cosines: Float32Array.from(kept, (i) => matches.cosines[i]!) };
}
