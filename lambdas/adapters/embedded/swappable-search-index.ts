import type { ListQuery } from '../../core/query/list-query';
import type { RecordByKind, ResourceKind } from '../../core/records';
import type { IndexPage, SearchIndex, SemanticQuery } from '../../ports/search-index';

/** Ids by kind. */
export type TouchedIds = Record<ResourceKind, Set<string>>;

export const noTouchedIds = (): TouchedIds => ({ grant: new Set(), contract: new Set(), funder: new Set() });

/**
 * One search index that another can replace while requests run (the local server's index
 * rebuild): every holder of the index (the API's services, the local change feed, the webhook
 * dispatcher) keeps this object, and `replace` moves them all at once. Calls already under way
 * finish on the index they started on, and `replace` resolves only then, so the old one can be
 * closed safely: SqliteSearchIndex.query awaits between statements, and closing its database
 * under a request would fail that request.
 *
 * For the rebuild's catch-up it can also note which records writes touched (`recordWrites`) and
 * hold writes back (`holdWrites`) while queries go on.
 */
export class SwappableSearchIndex<T extends SearchIndex> implements SearchIndex {
  private target: T;
  /** Calls under way per index, and who waits for that index to go idle. */
  private readonly inFlight = new Map<T, { calls: number; idle: (() => void)[] }>();
  private held: Promise<void> | null = null;
  private touched: TouchedIds | null = null;

  constructor(initial: T) {
    this.target = initial;
  }

  /** The index new calls go to. */
  get current(): T {
    return this.target;
  }

  query<K extends ResourceKind>(kind: K, query: ListQuery & { kind: K }, semantic?: SemanticQuery): Promise<IndexPage<K>> {
    return this.run((index) => index.query(kind, query, semantic));
  }

  upsert<K extends ResourceKind>(kind: K, records: readonly RecordByKind[K][], vectors?: readonly (Float32Array | null)[]): Promise<void> {
    // The ids are listed only while a rebuild records writes: not on every ordinary write.
    return this.write(
      kind,
      () => records.map((record) => record.id),
      (index) => index.upsert(kind, records, vectors),
    );
  }

  remove(kind: ResourceKind, ids: readonly string[]): Promise<void> {
    return this.write(
      kind,
      () => ids,
      (index) => index.remove(kind, ids),
    );
  }

  /**
   * Sends new calls to `next`; resolves with the index replaced once no call is under way on it
   * any more (the caller closes it then).
   */
  async replace(next: T): Promise<T> {
    const previous = this.target;
    this.target = next;
    const state = this.inFlight.get(previous);
    if (state) await new Promise<void>((resolve) => state.idle.push(resolve));
    return previous;
  }

  /**
   * From now on, notes the ids of every record written (upserted or removed) through this index,
   * until `stop` returns them.
   */
  recordWrites(): { stop(): TouchedIds } {
    const touched = noTouchedIds();
    this.touched = touched;
    return {
      stop: () => {
        if (this.touched === touched) this.touched = null;
        return touched;
      },
    };
  }

  /**
   * Runs `work` with writes held back: an upsert or remove that arrives meanwhile waits and then
   * goes to the current index; writes already under way are not waited for (replace does that).
   * Queries are never held.
   */
  async holdWrites<R>(work: () => Promise<R>): Promise<R> {
    if (this.held) throw new Error('writes are already held');
    let release!: () => void;
    this.held = new Promise<void>((resolve) => {
      release = resolve;
    });
    try {
      return await work();
    } finally {
      this.held = null;
      release();
    }
  }

  /**
   * A write, on the index current when it starts: at once unless writes are held (no await in
   * between, so a write made before `replace` is one under way on the old index).
   */
  private async write(kind: ResourceKind, idsOf: () => readonly string[], call: (index: T) => Promise<void>): Promise<void> {
    while (this.held) await this.held;
    if (this.touched) for (const id of idsOf()) this.touched[kind].add(id);
    return this.run(call);
  }

  /** Runs one call on the current index, counted as under way on that index until it settles. */
  private async run<R>(call: (index: T) => Promise<R>): Promise<R> {
    const index = this.target;
    let state = this.inFlight.get(index);
    if (!state) {
      state = { calls: 0, idle: [] };
      this.inFlight.set(index, state);
    }
    state.calls++;
    try {
      return await call(index);
    } finally {
      if (--state.calls === 0) {
        this.inFlight.delete(index);
        for (const resolve of state.idle) resolve();
      }
    }
  }
}
