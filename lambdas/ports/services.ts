import type { Clock } from './clock';
import type { KeyStore } from './key-store';
import type { RecordStore } from './record-store';
import type { SearchIndex } from './search-index';
import type { UsageMeter } from './usage-meter';

/** The ports a handler may use, built once per cold start by a composition root. */
export interface Services {
  store: RecordStore;
  index: SearchIndex;
  clock: Clock;
  /** Daily quotas and usage figures per API key. */
  meter: UsageMeter;
  /** API keys: the authorizer looks callers up here. */
  keys: KeyStore;
}

export type ServicesProvider = () => Services;
