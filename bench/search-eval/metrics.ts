/**
 * Graded-relevance metrics of one ranked list against one query's judgements (id -> grade 0-3).
 * Unjudged records count as not relevant.
 */

/** nDCG@k with exponential gain (2^grade - 1) and log2 discount, against the ideal order of all judgements. */
export function ndcgAt(k: number, ranked: readonly string[], grades: ReadonlyMap<string, number>): number {
  const gain = (grade: number) => 2 ** grade - 1;
  const dcg = (gains: number[]) => gains.slice(0, k).reduce((sum, g, i) => sum + g / Math.log2(i + 2), 0);
  const ideal = dcg([...grades.values()].map(gain).sort((a, b) => b - a));
  if (ideal === 0) return 0;
  return dcg(ranked.map((id) => gain(grades.get(id) ?? 0))) / ideal;
}

/** The share of records graded at least `minGrade` that appear in the first k. */
export function recallAt(k: number, ranked: readonly string[], grades: ReadonlyMap<string, number>, minGrade = 1): number {
  const relevant = [...grades].filter(([, grade]) => grade >= minGrade).map(([id]) => id);
  if (relevant.length === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  return relevant.filter((id) => top.has(id)).length / relevant.length;
}

/**
 * Recall at k against what k results can hold: found / min(k, relevant), BEIR's "capped recall".
 * A query with more relevant records than k (an assistance listing with 200 grants) caps plain
 * recall below 1 for every system, the ideal order included; this one reaches 1 for a perfect list.
 */
export function cappedRecallAt(k: number, ranked: readonly string[], grades: ReadonlyMap<string, number>, minGrade = 1): number {
  const relevant = [...grades].filter(([, grade]) => grade >= minGrade).length;
  if (relevant === 0) return 0;
  return (recallAt(k, ranked, grades, minGrade) * relevant) / Math.min(k, relevant);
}

export function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}
