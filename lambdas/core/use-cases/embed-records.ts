import type { Embedder, EmbeddingCache } from '../../ports/embedder';
import type { RecordByKind, ResourceKind } from '../records';
import { embeddingKeyOf, embeddingTextOf } from '../search/embedding-text';

export interface EmbeddingPorts {
  embedder: Embedder;
  cache: EmbeddingCache;
}

/**
 * The vectors of records about to be indexed, in order. Texts embedded before (by this embedder)
 * come from the cache; only new texts reach the model, and the same text twice in one batch is
 * embedded once.
 */
export async function embedRecords<K extends ResourceKind>(
  kind: K,
  records: readonly RecordByKind[K][],
  ports: EmbeddingPorts,
): Promise<(Float32Array | null)[]> {
  const texts = records.map((record) => embeddingTextOf(kind, record));
  const keys = texts.map((text) => embeddingKeyOf(ports.embedder.space, text));
  const cached = await ports.cache.get([...new Set(keys)]);
  const missing = new Map<string, string>();
  keys.forEach((key, i) => {
    if (!cached.has(key)) missing.set(key, texts[i]!);
  });
  const fresh = new Map<string, Float32Array | null>();
  if (missing.size > 0) {
    const vectors = await ports.embedder.embed([...missing.values()]);
    [...missing.keys()].forEach((key, i) => fresh.set(key, vectors[i] ?? null));
    const storable = new Map([...fresh].filter((entry): entry is [string, Float32Array] => entry[1] !== null));
    if (storable.size > 0) await ports.cache.put(storable);
  }
  return keys.map((key) => cached.get(key) ?? fresh.get(key) ?? null);
}
