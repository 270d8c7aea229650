import { describe, expect, it } from 'vitest';
import { SwappableSearchIndex } from '../../lambdas/adapters/embedded/swappable-search-index';
import type { ListQuery } from '../../lambdas/core/query/list-query';
import type { Funder, Grant } from '../../lambdas/core/records';
import type { IndexPage, SearchIndex } from '../../lambdas/ports/search-index';

/** A promise and the functions that settle it. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** An index whose calls are logged and, while `gate` is set, wait for it. */
class ScriptedIndex implements SearchIndex {
  readonly calls: string[] = [];
  gate: Promise<void> | null = null;
  constructor(
    readonly name: string,
    private readonly failWith?: Error,
  ) {}

  async query(): Promise<IndexPage<never>> {
    this.calls.push('query');
    await this.gate;
    if (this.failWith) throw this.failWith;
    return { total: this.name.length, results: [] };
  }

  async upsert(_kind: string, records: readonly { id: string }[]): Promise<void> {
    this.calls.push(`upsert ${records.map((r) => r.id).join(',')}`);
    await this.gate;
  }

  async remove(_kind: string, ids: readonly string[]): Promise<void> {
    this.calls.push(`remove ${ids.join(',')}`);
    await this.gate;
  }
}

const query = { kind: 'grant' } as ListQuery & { kind: 'grant' };
const grant = (id: string) => ({ id }) as Grant;
/** Lets every settled promise's callbacks run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('SwappableSearchIndex', () => {
  it('delegates every call to the current index', async () => {
    const first = new ScriptedIndex('first');
    const index = new SwappableSearchIndex(first);
    expect((await index.query('grant', query)).total).toBe(5);
    await index.upsert('grant', [grant('a')]);
    await index.remove('grant', ['b']);
    expect(first.calls).toEqual(['query', 'upsert a', 'remove b']);
    expect(index.current).toBe(first);
  });

  it('replace sends new calls to the new index at once, and resolves only when the calls under way on the old one have finished', async () => {
    const old = new ScriptedIndex('old');
    const next = new ScriptedIndex('next-one');
    const index = new SwappableSearchIndex(old);
    const slow = deferred();
    old.gate = slow.promise;
    const underWay = [index.query('grant', query), index.upsert('grant', [grant('a')])];
    let replaced: ScriptedIndex | undefined;
    const replacing = index.replace(next).then((previous) => {
      replaced = previous;
    });
    // New calls go to the new index while the old one still works on its own.
    expect((await index.query('grant', query)).total).toBe(8);
    await index.upsert('grant', [grant('b')]);
    expect(next.calls).toEqual(['query', 'upsert b']);
    await settle();
    expect(replaced).toBeUndefined();
    slow.resolve();
    await replacing;
    expect(replaced).toBe(old);
    expect((await underWay[0]) as IndexPage<'grant'>).toMatchObject({ total: 3 });
    expect(old.calls).toEqual(['query', 'upsert a']);
  });

  it('replace resolves at once when nothing runs on the old index, and after a failed call too', async () => {
    const index = new SwappableSearchIndex<ScriptedIndex>(new ScriptedIndex('old', new Error('broken')));
    await expect(index.query('grant', query)).rejects.toThrow('broken');
    await index.replace(new ScriptedIndex('next'));
    const failing = new ScriptedIndex('failing', new Error('mid-query'));
    const gate = deferred();
    failing.gate = gate.promise;
    await index.replace(failing);
    const call = index.query('grant', query);
    const replacing = index.replace(new ScriptedIndex('last'));
    gate.resolve();
    await expect(call).rejects.toThrow('mid-query');
    await expect(replacing).resolves.toBe(failing);
  });

  it('notes the records written while recording, and only then', async () => {
    const index = new SwappableSearchIndex(new ScriptedIndex('only'));
    await index.upsert('grant', [grant('before')]);
    const writes = index.recordWrites();
    await index.upsert('grant', [grant('a'), grant('b')]);
    await index.remove('contract', ['c']);
    await index.query('grant', query);
    const touched = writes.stop();
    await index.upsert('funder', [{ id: 'after' } as Funder]);
    expect({ grant: [...touched.grant], contract: [...touched.contract], funder: [...touched.funder] }).toEqual({
      grant: ['a', 'b'],
      contract: ['c'],
      funder: [],
    });
  });

  it('holdWrites keeps writes back until its work is done, and lets queries through', async () => {
    const old = new ScriptedIndex('old');
    const next = new ScriptedIndex('next');
    const index = new SwappableSearchIndex(old);
    const work = deferred();
    const holding = index.holdWrites(async () => {
      await index.replace(next);
      await work.promise;
      return 'done';
    });
    const write = index.upsert('grant', [grant('held')]);
    const removal = index.remove('grant', ['gone']);
    expect((await index.query('grant', query)).total).toBe(4); // the new index answers
    await settle();
    expect(next.calls).toEqual(['query']);
    work.resolve();
    await expect(holding).resolves.toBe('done');
    await Promise.all([write, removal]);
    expect(next.calls).toEqual(['query', 'upsert held', 'remove gone']);
    expect(old.calls).toEqual([]);
  });

  it('holdWrites releases the writes when its work fails, and refuses to nest', async () => {
    const only = new ScriptedIndex('only');
    const index = new SwappableSearchIndex(only);
    const work = deferred();
    const holding = index.holdWrites(() => work.promise);
    await expect(index.holdWrites(async () => undefined)).rejects.toThrow('already held');
    const write = index.upsert('grant', [grant('x')]);
    work.reject(new Error('catch-up failed'));
    await expect(holding).rejects.toThrow('catch-up failed');
    await write;
    expect(only.calls).toEqual(['upsert x']);
  });

  it('a write under way when writes are held is waited for by replace, not held', async () => {
    const old = new ScriptedIndex('old');
    const next = new ScriptedIndex('next');
    const index = new SwappableSearchIndex(old);
    const slow = deferred();
    old.gate = slow.promise;
    const writes = index.recordWrites();
    const underWay = index.upsert('grant', [grant('late')]);
    await settle();
    let swapped = false;
    const holding = index.holdWrites(async () => {
      await index.replace(next);
      swapped = true;
      return writes.stop();
    });
    await settle();
    expect(swapped).toBe(false);
    slow.resolve();
    const touched = await holding;
    await underWay;
    expect([...touched.grant]).toEqual(['late']); // so the catch-up re-reads it for the new index
  });
});
