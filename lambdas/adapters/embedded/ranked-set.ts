import type { Facets } from '../../core/query/facets';
import type { IdRanks } from './id-order';
import type { RowBitmap } from './row-bitmap';

/**
 * A search's whole result set in relevance order, put in order only as far as pages ask: a page
 * of 20 out of 20,000 matches needs the best 20 in order, not all of them. The set is whole from
 * the start (its total, its facets and any field order need every member, not their order);
 * `sortedTo` says how much of it is in its final order, and a page further down sorts on to there
 * (sortedThrough). A record's place depends on its own score and id alone, so narrowing the set
 * to a query's filters keeps whatever order it has (rankingWithin).
 *
 * Order: best score first, ties by id (each record's place in id order, `ids`).
 */
export interface Ranking {
  rowids: Int32Array;
  /** What the set is ordered by: BM25 (keyword), cosine (semantic) or fused relevance (hybrid). */
  scores: Float32Array;
  /** Entries [0, sortedTo) are in their final order; the others follow, unordered. */
  sortedTo: number;
  /** The id order ties are broken by, as it was when the set was made. */
  ids: IdRanks;
  /** A result's relevance from its score, in semantic and hybrid modes; keyword results have none. */
  relevanceOf?: (score: number) => number;
  /** How many times the set was narrowed to a query's filters (narrowedRanking). */
  narrowings?: number;
  /** Made once a set is paged in a field order or asked for facets; a write discards them with it. */
  positionOf?: Map<number, number>;
  facets?: Map<string, Facets>;
  bits?: RowBitmap;
}

/** Room for a record's place in id order beside its 32-bit score in one exact float64 (2^32 * 2^21 = 2^53). */
const PLACE_RANGE = 2 ** 21;

/** The fewest entries a sort step orders: a page and the next few, so paging on sorts rarely. */
const MIN_SORT_STEP = 256;

/**
 * A set in no order yet, made of the arrays given (the set orders them in place: they are its
 * own from here); rows with no place in `ids` (removed while the query ran) are no match.
 */
export function unsortedRanking(found: { rowids: Int32Array; scores: Float32Array }, ids: IdRanks, relevanceOf?: (score: number) => number): Ranking {
  if (ids.rowidAt.length >= PLACE_RANGE) throw new Error(`cannot rank among ${ids.rowidAt.length} records at once`);
  const ranking: Ranking = { rowids: found.rowids, scores: found.scores, sortedTo: 0, ids, ...(relevanceOf ? { relevanceOf } : {}) };
  dropRemoved(ranking);
  return ranking;
}

/**
 * Puts entries [0, end) in their final order, sorting on from `sortedTo` (at least MIN_SORT_STEP
 * more, so a client paging on does not sort every page). Each step selects the best of the
 * unsorted rest (a quickselect over packed keys) and sorts only those.
 */
export function sortedThrough(ranking: Ranking, end: number): void {
  if (end <= ranking.sortedTo) return;
  dropRemoved(ranking);
  const total = ranking.rowids.length;
  const target = Math.min(total, Math.max(end, ranking.sortedTo + MIN_SORT_STEP));
  if (target <= ranking.sortedTo) return;
  // A permutation moves entries: positions cached for field-ordered pages are stale.
  ranking.positionOf = undefined;
  sortPrefix(ranking, ranking.sortedTo, total, target - ranking.sortedTo);
  ranking.sortedTo = target;
}

/**
 * Records removed since the set was made (IdOrder.forget took their place) are no match any more:
 * they leave the set before it is sorted, as they would have had it been made after.
 */
function dropRemoved(ranking: Ranking): void {
  const { rowids, ids } = ranking;
  let removed = false;
  for (let i = 0; i < rowids.length && !removed; i++) removed = !((ids.rankOf[rowids[i]!] ?? -1) >= 0);
  if (!removed) return;
  const kept = rankingKeeping(ranking, (rowid) => (ids.rankOf[rowid] ?? -1) >= 0);
  Object.assign(ranking, { rowids: kept.rowids, scores: kept.scores, sortedTo: kept.sortedTo });
}

/** Brings the best `count` entries of [start, end) to its front, in order; the rest follow, unordered. */
function sortPrefix(ranking: Ranking, start: number, end: number, count: number): void {
  const { rowids, scores, ids } = ranking;
  const length = end - start;
  const keys = keysFor(length);
  const bits = new Uint32Array(scores.buffer, scores.byteOffset, scores.length);
  for (let i = 0; i < length; i++) {
    const raw = bits[start + i]!;
    // IEEE 754 bits as an unsigned integer in the float's own order, flipped for descending, above the id place.
    const ascending = raw & 0x80000000 ? ~raw >>> 0 : (raw | 0x80000000) >>> 0;
    keys[i] = (0xffffffff - ascending) * PLACE_RANGE + ids.rankOf[rowids[start + i]!]!;
  }
  if (count < length) selectSmallest(keys, count, length);
  keys.subarray(0, Math.min(count, length)).sort();
  for (let i = 0; i < length; i++) {
    const key = keys[i]!;
    const place = key % PLACE_RANGE;
    const ascending = 0xffffffff - (key - place) / PLACE_RANGE;
    rowids[start + i] = ids.rowidAt[place]!;
    bits[start + i] = ascending & 0x80000000 ? ascending & 0x7fffffff : ~ascending >>> 0;
  }
}

let scratchKeys = new Float64Array(0);

/** Room for `length` sort keys, kept from sort to sort (a step over 20,000 matches needs 160 KB). */
function keysFor(length: number): Float64Array {
  if (scratchKeys.length < length) scratchKeys = new Float64Array(Math.max(length, Math.ceil(scratchKeys.length * 1.25)));
  return scratchKeys.subarray(0, length);
}

/**
 * Rearranges the first `length` of `keys` so that its `count` smallest are in front, unordered (Hoare's quickselect,
 * median of three; keys are distinct, since each holds a distinct id place).
 */
function selectSmallest(keys: Float64Array, count: number, length: number): void {
  let lo = 0;
  let hi = length - 1;
  const k = count - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const [a, b, c] = [keys[lo]!, keys[mid]!, keys[hi]!];
    const pivot = a < b ? (b < c ? b : Math.max(a, c)) : a < c ? a : Math.max(b, c);
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (keys[i]! < pivot) i++;
      while (keys[j]! > pivot) j--;
      if (i <= j) {
        const swap = keys[i]!;
        keys[i++] = keys[j]!;
        keys[j--] = swap;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return;
  }
}

const hasBit = (bits: RowBitmap, rowid: number) => ((bits[rowid >>> 5] ?? 0) & (1 << (rowid & 31))) !== 0;

/** The entries `keep` keeps, in the set's order (its sorted part stays sorted). */
function rankingKeeping(ranking: Ranking, keep: (rowid: number) => boolean): Ranking {
  const { rowids: all, scores: allScores } = ranking;
  let count = 0;
  for (let i = 0; i < all.length; i++) if (keep(all[i]!)) count++;
  const rowids = new Int32Array(count);
  const scores = new Float32Array(count);
  let kept = 0;
  let sortedTo = 0;
  for (let i = 0; i < all.length; i++) {
    const rowid = all[i]!;
    if (!keep(rowid)) continue;
    rowids[kept] = rowid;
    scores[kept++] = allScores[i]!;
    if (i < ranking.sortedTo) sortedTo = kept;
  }
  return { rowids, scores, sortedTo, ids: ranking.ids, ...(ranking.relevanceOf ? { relevanceOf: ranking.relevanceOf } : {}) };
}

/** The set's records whose bit is set (the rows passing a query's filters), in its order. */
export function rankingWithin(ranking: Ranking, bits: RowBitmap): Ranking {
  return rankingKeeping(ranking, (rowid) => hasBit(bits, rowid));
}

/**
 * A whole catalogue's set narrowed to a query's filters, as rankingWithin. The second time a set is
 * narrowed (a text tried with another filter, and likely more), it is first put wholly in order,
 * once: every narrowing after is born in order, where each would otherwise order its own part.
 */
export function narrowedRanking(whole: Ranking, bits: RowBitmap): Ranking {
  whole.narrowings = (whole.narrowings ?? 0) + 1;
  if (whole.narrowings === 2) sortedThrough(whole, whole.rowids.length);
  return rankingWithin(whole, bits);
}

/** The set's records among `wanted` ids (ListQuery.ids), in its order. */
export function rankingAmong(ranking: Ranking, wanted: ReadonlySet<string>, idOf: (rowid: number) => string): Ranking {
  return rankingKeeping(ranking, (rowid) => wanted.has(idOf(rowid)));
}

/** Every match in order, best first, ties by id (a whole set sorted at once). */
export function rankMatches(matches: { rowids: Int32Array; cosines: Float32Array }, ids: IdRanks): { rowids: Int32Array; cosines: Float32Array } {
  const ranking = unsortedRanking({ rowids: Int32Array.from(matches.rowids), scores: Float32Array.from(matches.cosines) }, ids);
  sortedThrough(ranking, ranking.rowids.length);
  return { rowids: ranking.rowids, cosines: ranking.scores };
}
