import type { ResourceKind } from '../core/records';

/**
 * Records indexed without their vector because the embedding model failed (the indexer keeps
 * listings current through an outage, lambdas/core/use-cases/index-record-changes.ts), waiting for
 * the backfill to embed them (backfill-vectors.ts). Until then they are found by listings and
 * keyword search, not by semantic search.
 */
export interface VectorBacklog {
  add(kind: ResourceKind, ids: readonly string[]): Promise<void>;
  /** Up to `limit` waiting ids of a kind, oldest first is not promised. */
  list(kind: ResourceKind, limit: number): Promise<string[]>;
  remove(kind: ResourceKind, ids: readonly string[]): Promise<void>;
}
