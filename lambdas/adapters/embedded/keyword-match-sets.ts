import type { KeywordQuery } from '../../core/search/keyword-query';
import { andInto, bitmapOfRows, orInto, type RowBitmap, setBit, wordsFor } from './row-bitmap';

/**
 * The keyword matches of a query as bitmaps over rowids, and BM25 for only the records a search
 * keeps: the issue-24 split of "which records match" (counted, never scored) from "how well"
 * (scored for the records that pass the filters and the model's floor, usually a few hundred of
 * tens of thousands).
 *
 * Whether a record is a full match depends on how many of the query's counted terms it holds, so the full matches
 * are those whose count reaches the minimum: each term's bitmap (or a rare term's rowids) is added
 * into a bit-sliced counter (plane p holds bit p of every record's count) and the counts compared
 * with the minimum a word of 32 records at a time. At 100,000 records that is at most 3,125 words
 * a term, where walking postings into dense per-record arrays touched every posting and every record.
 */

/**
 * One term's postings: the records holding it in ascending rowid order, with its BM25 in each
 * (higher is better), and as a bitmap when the term is in at least one record in 32, where the
 * bitmap is no larger than the rowids (a rare word's would be mostly zeros: its rowids serve).
 */
export interface TermPostings {
  rowids: Int32Array;
  scores: Float32Array;
  bits: RowBitmap | null;
}

export function termPostingsOf(rowids: Int32Array, scores: Float32Array): TermPostings {
  const rows = rowids.length > 0 ? rowids[rowids.length - 1]! + 1 : 0;
  return { rowids, scores, bits: rowids.length >= wordsFor(rows) && rowids.length > 0 ? bitmapOfRows(rowids) : null };
}

/** Words of a bitmap covering every record of the postings. */
const wordsOf = ({ rowids }: TermPostings) => (rowids.length > 0 ? wordsFor(rowids[rowids.length - 1]! + 1) : 0);

/** Whether the term is in the record. */
function holds(postings: TermPostings, rowid: number): boolean {
  if (postings.bits) return ((postings.bits[rowid >>> 5] ?? 0) & (1 << (rowid & 31))) !== 0;
  const at = firstAtLeast(postings.rowids, rowid, 0);
  return postings.rowids[at] === rowid;
}

/** Keyword matches: full ones, and partial ones (only when asked for; disjoint from full). */
export interface KeywordMatchSets {
  full: RowBitmap;
  partial: RowBitmap;
}

/**
 * The records holding at least `query.required` of the counted terms (and a telling one, when the
 * query has any): full matches; and, with `withPartial`, those that miss that but hold a
 * partial term. `lists[j]` holds the postings of `query.counted[j]`.
 */
export function keywordMatchSets(query: KeywordQuery, lists: readonly TermPostings[], withPartial: boolean): KeywordMatchSets {
  const words = Math.max(0, ...lists.map(wordsOf));
  const full = atLeast(lists, query.required, words);
  if (query.telling.length > 0) andInto(full, unionOf(termPostings(query, lists, query.telling), words));
  const partial = withPartial && query.partial.length > 0 ? unionOf(termPostings(query, lists, query.partial), words) : new Uint32Array(words);
  andInto(partial, full, true);
  return { full, partial };
}

/**
 * The BM25 of each record in `rowids` (ascending) for the query: the sum of its terms' scores, in
 * the order of `lists`, plus its phrase score (`phrase`, 0 for a record without the terms near each
 * other). Summed in float64 and rounded once, as a dense pass over postings would.
 */
export function keywordScores(lists: readonly TermPostings[], rowids: Int32Array, phrase: ((rowid: number) => number) | null): Float32Array {
  const sums = new Float64Array(rowids.length);
  for (const postings of lists) {
    let at = 0;
    for (let i = 0; i < rowids.length; i++) {
      at = firstAtLeast(postings.rowids, rowids[i]!, at);
      if (at === postings.rowids.length) break;
      if (postings.rowids[at] === rowids[i]) sums[i] = sums[i]! + postings.scores[at]!;
    }
  }
  if (phrase) for (let i = 0; i < rowids.length; i++) sums[i] = sums[i]! + phrase(rowids[i]!);
  return new Float32Array(sums);
}

/**
 * Whether some record in `rowids` holds every term of `lists`: only such a record can have the
 * terms near each other, so a search keeping none needs no phrase query.
 */
export function someHoldsEveryTerm(lists: readonly TermPostings[], rowids: Int32Array): boolean {
  return rowids.some((rowid) => lists.every((postings) => holds(postings, rowid)));
}

/**
 * The first index at or after `from` whose value is at least `value` (`sorted.length` if none):
 * galloping, so a walk over few records through a long list costs a logarithm a record, and a walk
 * over many costs a step.
 */
export function firstAtLeast(sorted: Int32Array, value: number, from: number): number {
  if (from >= sorted.length || sorted[from]! >= value) return from;
  let low = from;
  let step = 1;
  // sorted[low] < value throughout; the answer is in (low, high].
  while (low + step < sorted.length && sorted[low + step]! < value) {
    low += step;
    step *= 2;
  }
  let high = Math.min(low + step, sorted.length);
  while (high - low > 1) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]! < value) low = middle;
    else high = middle;
  }
  return high;
}

/** The records in at least `minimum` of the terms' postings, as a bitmap of `words` words. */
export function atLeast(sets: readonly TermPostings[], minimum: number, words: number): RowBitmap {
  const planeCount = 32 - Math.clz32(sets.length);
  const planes = Array.from({ length: planeCount }, () => new Uint32Array(words));
  // Adds a word's bits into the count of each of its records (a ripple carry through the planes).
  const add = (w: number, bits: number) => {
    let carry = bits;
    for (let p = 0; p < planeCount && carry !== 0; p++) {
      const plane = planes[p]!;
      const sum = plane[w]!;
      plane[w] = sum ^ carry;
      carry = sum & carry;
    }
  };
  for (const { bits, rowids } of sets) {
    if (bits) for (let w = 0; w < bits.length; w++) add(w, bits[w]!);
    else for (let i = 0; i < rowids.length; i++) add(rowids[i]! >>> 5, 1 << (rowids[i]! & 31));
  }
  const result = new Uint32Array(words);
  if (minimum > sets.length) return result;
  // count >= minimum, bit-serially from the highest plane: `greater` where the count's high bits
  // already exceed the minimum's, `equal` where they match so far.
  for (let w = 0; w < words; w++) {
    let greater = 0;
    let equal = -1;
    for (let p = planeCount - 1; p >= 0; p--) {
      const bit = planes[p]![w]!;
      if ((minimum >>> p) & 1) equal &= bit;
      else {
        greater |= equal & bit;
        equal &= ~bit;
      }
    }
    result[w] = greater | equal;
  }
  return result;
}

function termPostings(query: KeywordQuery, lists: readonly TermPostings[], terms: readonly string[]): TermPostings[] {
  return query.counted.flatMap((term, j) => (terms.includes(term) ? [lists[j]!] : []));
}

function unionOf(sets: readonly TermPostings[], words: number): RowBitmap {
  const union = new Uint32Array(words);
  for (const { bits, rowids } of sets) {
    if (bits) orInto(union, bits);
    else for (let i = 0; i < rowids.length; i++) setBit(union, rowids[i]!);
  }
  return union;
}
