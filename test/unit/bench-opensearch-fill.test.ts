import { describe, expect, it } from 'vitest';
import { copyId, noisyCopy } from '../../bench/opensearch-fill';
import { seededRandom as random } from '../../local/seeded-random';

/** The derived catalogue of the opensearch bench part: ids and vectors of the copies. */
describe("the bench's derived catalogue", () => {
  const unit = (n: number, next: () => number) => {
    const v = Float32Array.from({ length: n }, () => next() - 0.5);
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  };
  const cosine = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

  it('copies a vector with noise to a unit vector about 0.97 from it, the same every run', () => {
    const next = random(7);
    const cosines: number[] = [];
    for (let i = 0; i < 200; i++) {
      const source = unit(384, next);
      const copy = noisyCopy(source, next);
      expect(Math.abs(Math.hypot(...copy) - 1)).toBeLessThan(1e-5);
      cosines.push(cosine(source, copy));
    }
    const mean = cosines.reduce((a, b) => a + b, 0) / cosines.length;
    expect(mean).toBeGreaterThan(0.96);
    expect(mean).toBeLessThan(0.98);
    expect(Math.min(...cosines)).toBeGreaterThan(0.94);
    const source = unit(384, random(1));
    expect(noisyCopy(source, random(9))).toEqual(noisyCopy(source, random(9)));
    expect(noisyCopy(source, random(9))).not.toEqual(noisyCopy(source, random(10)));
  });

  it("gives each copy a uuid-shaped id of its own, the first keeping the record's", () => {
    const id = '06ac5267-9605-5c94-9f2b-d47a37b0b098';
    expect(copyId(id, 0)).toBe(id);
    const ids = Array.from({ length: 10 }, (_, copy) => copyId(id, copy));
    expect(new Set(ids).size).toBe(10);
    for (const copy of ids.slice(1)) expect(copy).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(copyId(id, 3)).toBe(ids[3]);
  });
});
