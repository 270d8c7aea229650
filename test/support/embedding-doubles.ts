import { createHash } from 'node:crypto';
import type { Embedder, EmbeddingCache } from '../../lambdas/ports/embedder';

/**
 * Test doubles of the embedding ports, for unit tests of one module: a deterministic embedder
 * (a unit vector derived from the text's hash; no meaning, but equal texts give equal vectors)
 * that counts the texts it is asked for, and a cache in a Map.
 */
export function countingEmbedder(dimensions = 8): Embedder & { embedded: string[] } {
  const embedded: string[] = [];
  return {
    space: { embedder: 'test-hash', dimensions },
    embedded,
    async embed(texts) {
      embedded.push(...texts);
      return texts.map((text) => {
        if (text.trim() === '') return null;
        const bytes = createHash('sha256').update(text).digest();
        const vector = Float32Array.from({ length: dimensions }, (_, i) => bytes[i % bytes.length]! - 127.5);
        const norm = Math.hypot(...vector);
        return vector.map((x) => x / norm);
      });
    },
  };
}

export function memoryEmbeddingCache(): EmbeddingCache & { entries: Map<string, Float32Array> } {
  const entries = new Map<string, Float32Array>();
  return {
    entries,
    async get(keys) {
      return new Map(keys.flatMap((key) => (entries.has(key) ? [[key, entries.get(key)!] as const] : [])));
    },
    async put(batch) {
      for (const [key, vector] of batch) entries.set(key, vector);
    },
  };
}
