import type { TierPolicies } from '../core/auth/tier-quotas';
import type { Clock } from './clock';
import type { CursorKeySource } from './cursor-key';
import type { Embedder } from './embedder';
import type { KeyStore } from './key-store';
import type { MetricsRecorder } from './metrics';
import type { RecordStore } from './record-store';
import type { RequestLog } from './request-log';
import type { SearchIndex } from './search-index';
import type { UsageMeter } from './usage-meter';

/** The ports a handler may use, built once per cold start by a composition root. */
export interface Services {
  store: RecordStore;
  index: SearchIndex;
  /** Query vectors for semantic and hybrid search (the index's records were embedded by the same model). */
  embedder: Embedder;
  /** The minimum cosine similarity of a semantic match for this embedder. */
  semanticFloor: number;
  clock: Clock;
  /** The key list cursors are signed with (deep paging). */
  cursorKeys: CursorKeySource;
  /** Daily quotas and usage figures per API key. */
  meter: UsageMeter;
  /** Each key's recent requests; none when absent (services built for one test). */
  requestLog?: RequestLog;
  /** API keys: the authorizer looks callers up here. */
  keys: KeyStore;
  /** The tiers' quotas this deployment enforces (the stage's config in AWS); TIERS when absent. */
  tiers?: TierPolicies;
  /** CloudWatch metrics (quota rejections here; search and embedding times by the search adapters' wrappers); none when absent (the local server). */
  metrics?: MetricsRecorder;
}

export type ServicesProvider = () => Services;
