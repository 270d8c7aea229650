import { describe, expect, it } from 'vitest';
import { analysedLength, B, idf, K1, normLength, termScore } from '../../lambdas/adapters/embedded/lucene-bm25';

/** The embedded index's BM25 against Lucene's own arithmetic (BM25Similarity, SmallFloat), worked by hand. */
describe('BM25 as Lucene scores it', () => {
  it('keeps field lengths exact under 24 and rounds longer ones down as a one-byte norm does', () => {
    for (const length of [0, 1, 23, 24]) expect(normLength(length)).toBe(length);
    // 40 - 24 = 16 = 0b10000: four significant bits keep it; 41 - 24 = 17 loses its last bit.
    expect(normLength(40)).toBe(40);
    expect(normLength(41)).toBe(40);
    // 100 - 24 = 76 = 0b1001100 -> 0b1001 << 3 = 72.
    expect(normLength(100)).toBe(96);
    expect(normLength(1000)).toBeLessThanOrEqual(1000);
    expect(normLength(1000)).toBeGreaterThan(900);
  });

  it("has Lucene's IDF, log(1 + (N - df + 0.5) / (df + 0.5)), never negative", () => {
    expect(idf(1000, 10)).toBeCloseTo(Math.log(1 + 990.5 / 10.5), 12);
    expect(idf(10, 10)).toBeGreaterThan(0);
  });

  it("saturates a term's frequency with k1 1.2 and normalises by length with b 0.75, without the old (k1 + 1) factor", () => {
    expect([K1, B]).toEqual([1.2, 0.75]);
    // At the average length: weight × f / (f + k1).
    expect(termScore(2, 1, 10, 10)).toBeCloseTo(2 * (1 / (1 + 1.2)), 12);
    expect(termScore(2, 3, 10, 10)).toBeCloseTo(2 * (3 / (3 + 1.2)), 12);
    // A field twice the average length weighs a match less.
    expect(termScore(2, 1, 20, 10)).toBeCloseTo(2 * (1 / (1 + 1.2 * (0.25 + 0.75 * 2))), 12);
    expect(termScore(2, 1, 20, 10)).toBeLessThan(termScore(2, 1, 10, 10));
  });

  it('counts the tokens the english analyzer indexes: stop words out, inner apostrophes and dots kept in one token', () => {
    expect(analysedLength('The Rural Health Outreach Program')).toBe(4);
    expect(analysedLength("Children's services, version 3.5, and it's free")).toBe(6);
    expect(analysedLength('')).toBe(0);
    expect(analysedLength('—— ?!')).toBe(0);
  });
});
