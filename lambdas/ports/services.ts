import type { Clock } from './clock';
import type { RecordStore } from './record-store';
import type { SearchIndex } from './search-index';

/** The ports a handler may use, built once per cold start by a composition root. */
export interface Services {
  store: RecordStore;
  index: SearchIndex;
  clock: Clock;
}

export type ServicesProvider = () => Services;
