import { describe, expect, it } from 'vitest';
import { cappedRecallAt, ndcgAt, recallAt } from '../../bench/search-eval/metrics';

const ids = (n: number, prefix = 'r') => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

describe('search evaluation metrics', () => {
  it('caps recall at what k results can hold', () => {
    const relevant = new Map(ids(200).map((id) => [id, 2]));
    const perfect = ids(50);
    expect(recallAt(50, perfect, relevant)).toBeCloseTo(0.25);
    expect(cappedRecallAt(50, perfect, relevant)).toBe(1);
    expect(cappedRecallAt(50, [...ids(25), ...ids(25, 'x')], relevant)).toBe(0.5);
  });

  it('equals plain recall when a page holds every relevant record', () => {
    const grades = new Map([
      ['a', 3],
      ['b', 1],
      ['c', 0],
    ]);
    expect(cappedRecallAt(50, ['a', 'c'], grades)).toBe(recallAt(50, ['a', 'c'], grades));
    expect(cappedRecallAt(50, ['a', 'c'], grades)).toBe(0.5);
    expect(cappedRecallAt(50, [], new Map([['a', 0]]))).toBe(0);
  });

  it('scores nDCG against the ideal order of the judgements', () => {
    const grades = new Map([
      ['a', 3],
      ['b', 1],
    ]);
    expect(ndcgAt(10, ['a', 'b'], grades)).toBe(1);
    expect(ndcgAt(10, ['b', 'a'], grades)).toBeLessThan(1);
  });
});
