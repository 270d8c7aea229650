import { fusedRelevance } from '../../core/search/fusion';
import type { SimilarityScale } from '../../core/search/relevance';
import type { IdRanks } from './id-order';
import { rankMatches, type Matches } from './vector-matrix';

/**
 * Hybrid search's fusion (lambdas/core/search/fusion.ts) by rowid, in dense arrays: the union of
 * the keyword matches (with their BM25) and the semantic matches (with their cosines) can hold
 * most of a catalogue, and string ids in maps cost more than the rest of the query. Best first,
 * ties by id; `cosines` of the result are the fused relevance.
 */
export function fuseByRowid(keyword: { rowids: Int32Array; scores: Float32Array }, semantic: Matches, scale: SimilarityScale, ids: IdRanks): Matches {
  let size = 0;
  for (const list of [keyword.rowids, semantic.rowids]) for (const rowid of list) size = Math.max(size, rowid + 1);
  const cosineOf = new Float32Array(size).fill(Number.NaN);
  semantic.rowids.forEach((rowid, i) => {
    cosineOf[rowid] = semantic.cosines[i]!;
  });
  const scoreOf = new Float32Array(size).fill(Number.NaN);
  keyword.rowids.forEach((rowid, i) => {
    scoreOf[rowid] = keyword.scores[i]!;
  });
  const best = keyword.scores.reduce((max, score) => Math.max(max, score), 0);
  const union = new Int32Array(keyword.rowids.length + semantic.rowids.length);
  let count = 0;
  for (const rowid of semantic.rowids) union[count++] = rowid;
  for (const rowid of keyword.rowids) if (Number.isNaN(cosineOf[rowid]!)) union[count++] = rowid;
  const rowids = union.subarray(0, count);
  const fused = Float32Array.from(rowids, (rowid) => fusedRelevance(cosineOf[rowid]!, scoreOf[rowid]!, best, scale));
  return rankMatches({ rowids, cosines: fused }, ids);
}
