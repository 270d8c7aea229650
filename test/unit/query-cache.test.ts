import { describe, expect, it } from 'vitest';
import { QueryCache } from '../../lambdas/adapters/embedded/query-cache';

describe('QueryCache', () => {
  it('evicts the least recently used entry', () => {
    const cache = new QueryCache<number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1); // a is now the most recent
    cache.set('c', 3);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    expect(cache.get('c')).toBe(3);
  });

  it('clear drops everything', () => {
    const cache = new QueryCache<number[]>(10);
    cache.set('page', [1, 2]);
    cache.clear();
    expect(cache.get('page')).toBeUndefined();
  });
});
