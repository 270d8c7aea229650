import { fusedRelevance } from '../../core/search/fusion';
import type { SimilarityScale } from '../../core/search/relevance';
import type { Matches } from './vector-matrix';

/**
 * Hybrid search's fusion (lambdas/core/search/fusion.ts) by rowid, in dense arrays: the union of
 * the keyword matches (with their BM25) and the semantic matches (with their cosines) can hold
 * most of a catalogue, and string ids in maps cost more than the rest of the query. The union in
 * no order (ranked-set.ts orders what pages need); `cosines` of the result are the fused relevance.
 * `rows` bounds every rowid of both lists.
 */
export function fuseByRowid(keyword: { rowids: Int32Array; scores: Float32Array }, semantic: Matches, scale: SimilarityScale, rows: number): Matches {
  // By rowid, the keyword score of each keyword match (NaN elsewhere); loops, not callbacks: this runs over every match of both lists.
  const scoreOf = scoresByRowid(rows);
  let best = 0;
  for (let i = 0; i < keyword.rowids.length; i++) {
    const score = keyword.scores[i]!;
    scoreOf[keyword.rowids[i]!] = score;
    if (score > best) best = score;
  }
  const rowids = new Int32Array(keyword.rowids.length + semantic.rowids.length);
  const fused = new Float32Array(rowids.length);
  let count = 0;
  for (let i = 0; i < semantic.rowids.length; i++) {
    const rowid = semantic.rowids[i]!;
    rowids[count] = rowid;
    fused[count++] = fusedRelevance(semantic.cosines[i]!, scoreOf[rowid] ?? Number.NaN, best, scale);
    // Fused: the keyword-only pass below skips it.
    scoreOf[rowid] = Number.NaN;
  }
  for (let i = 0; i < keyword.rowids.length; i++) {
    const rowid = keyword.rowids[i]!;
    const score = scoreOf[rowid]!;
    if (Number.isNaN(score)) continue;
    rowids[count] = rowid;
    fused[count++] = fusedRelevance(Number.NaN, score, best, scale);
  }
  return { rowids: rowids.subarray(0, count), cosines: fused.subarray(0, count) };
}

let scratch = new Float32Array(0);

/** A NaN-filled array by rowid, kept from fusion to fusion (400 KB at 100,000 grants). */
function scoresByRowid(rows: number): Float32Array {
  if (scratch.length < rows) scratch = new Float32Array(Math.max(rows, Math.ceil(scratch.length * 1.25)));
  return scratch.subarray(0, rows).fill(Number.NaN);
}
