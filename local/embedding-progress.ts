import type { Embedder } from '../lambdas/ports/embedder';

/**
 * The embedder, telling `report` every `intervalMs` how many record texts it has embedded and how
 * fast, while it is busy: a first start or an import with a sentence transformer embeds for
 * minutes, and a silent terminal looks hung. Query embeddings (one text) are not counted.
 */
export function progressReportingEmbedder(inner: Embedder, report: (message: string) => void, intervalMs = 10_000): Embedder {
  let embedded = 0;
  let startedAt: number | null = null;
  let reportedAt = 0;
  return {
    space: inner.space,
    async embed(texts, purpose) {
      const vectors = await inner.embed(texts, purpose);
      if (purpose !== 'query') {
        const now = performance.now();
        startedAt ??= now;
        embedded += texts.length;
        if (now - reportedAt >= intervalMs && now > startedAt) {
          reportedAt = now;
          const rate = embedded / ((now - startedAt) / 1000);
          report(
            `embedding record texts with ${inner.space.embedder}: ${embedded.toLocaleString('en-US')} so far (${rate.toFixed(0)} a second; each is embedded once and cached)…`,
          );
        }
      }
      return vectors;
    },
  };
}
