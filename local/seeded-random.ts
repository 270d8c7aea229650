/**
 * A small seeded generator (mulberry32) for repeatable sequences: the load bench's requests, a
 * flapping test receiver's schedule. One stream per seed; the synthetic catalogue, which needs
 * 100,000 streams kept apart, has its own sfc32 (local/synthetic-catalogue.ts).
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
