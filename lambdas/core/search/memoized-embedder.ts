import type { Embedder } from '../../ports/embedder';

/**
 * Remembers the vectors of the last texts asked for. A client paging through one search asks for
 * the same query vector on every page; from Bedrock each costs a round trip and a fee.
 */
export function memoizedEmbedder(inner: Embedder, maxEntries: number): Embedder {
  const remembered = new Map<string, Float32Array | null>();
  return {
    space: inner.space,
    async embed(texts, purpose = 'document') {
      // A query and a passage of the same text are different vectors for asymmetric models.
      const keyOf = (text: string) => `${purpose}\u0000${text}`;
      const missing = [...new Set(texts.filter((text) => !remembered.has(keyOf(text))))];
      if (missing.length > 0) {
        const vectors = await inner.embed(missing, purpose);
        missing.forEach((text, i) => remembered.set(keyOf(text), vectors[i] ?? null));
      }
      const vectors = texts.map((text) => remembered.get(keyOf(text)) ?? null);
      // Re-inserted, so the Map's order is recency and the oldest entry is the first.
      texts.forEach((text, i) => {
        remembered.delete(keyOf(text));
        remembered.set(keyOf(text), vectors[i]!);
      });
      while (remembered.size > maxEntries) remembered.delete(remembered.keys().next().value as string);
      return vectors;
    },
  };
}
