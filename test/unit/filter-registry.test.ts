import { describe, expect, it } from 'vitest';
import { INDEX_PROPERTIES } from '../../lambdas/adapters/aws/opensearch-mappings';
import { DECLARED_COLUMNS } from '../../lambdas/adapters/embedded/declared-columns';
import { schemaDdl } from '../../lambdas/adapters/embedded/sqlite-index-schema';
import {
  declaredFilterValues,
  filtersOf,
  LIST_FILTERS,
  type ListFilter,
  type RangeShape,
  readsList,
  storedBound,
} from '../../lambdas/core/query/filter-registry';
import { LIST_PARAMS } from '../../lambdas/core/query/list-query';
import { parseParams } from '../../lambdas/core/query/params';
import { RECORD_SCHEMAS } from '../../lambdas/core/records';

/**
 * The registry of declared list filters (filter-registry.ts) holds together: each entry reads a
 * field its kinds' records have, is a parameter of their lists, is indexed by OpenSearch as its
 * shape compares it and has a column in the embedded index, and its case rule survives parsing.
 */

const schemaFieldType = (kind: 'grant' | 'contract', field: string) =>
  (RECORD_SCHEMAS[kind].shape as Record<string, { _zod: { def: { type: string } } } | undefined>)[field]?._zod.def.type;

describe('the declared filters', () => {
  it('have unique parameters and keys', () => {
    expect(new Set(LIST_FILTERS.map((f) => f.param)).size).toBe(LIST_FILTERS.length);
    expect(new Set(LIST_FILTERS.map((f) => f.key)).size).toBe(LIST_FILTERS.length);
  });

  it.each(LIST_FILTERS.map((f) => [f.param, f] as const))('%s reads a field of each of its kinds, and is a parameter of their lists only', (_param, filter) => {
    expect(filter.kinds.length).toBeGreaterThan(0);
    for (const kind of filter.kinds) {
      expect(schemaFieldType(kind, filter.field), `${kind}.${filter.field}`).toBeDefined();
      expect(LIST_PARAMS[kind].map((p) => p.name)).toContain(filter.param);
    }
    for (const kind of (['grant', 'contract', 'funder'] as const).filter((k) => !(filter.kinds as readonly string[]).includes(k))) {
      expect(LIST_PARAMS[kind].map((p) => p.name)).not.toContain(filter.param);
    }
  });

  it.each(LIST_FILTERS.map((f) => [f.param, f] as const))('%s is mapped in OpenSearch as its shape compares it', (_param, filter) => {
    const { shape } = filter;
    for (const kind of filter.kinds) {
      const mapping = INDEX_PROPERTIES[kind][filter.field] as { type: string; normalizer?: string } | undefined;
      expect(mapping, `${kind}.${filter.field} is indexed`).toBeDefined();
      if (shape.type === 'terms') {
        expect(mapping!.type).toBe('keyword');
        // The index folds the stored values as the filter folds the given ones.
        expect(mapping!.normalizer ?? 'exact').toBe({ upper: 'uppercase', lower: 'lowercase', exact: 'exact' }[shape.case]);
      } else if (shape.type === 'prefix') {
        expect(mapping).toEqual({ type: 'keyword' });
      } else {
        expect(mapping!.type).toBe(shape.of === 'number' ? 'double' : 'date');
      }
    }
  });

  it('each have a column in the embedded index row tables', () => {
    const grantRows = schemaDdl().find((sql) => sql.startsWith('CREATE TABLE grant_rows'))!;
    for (const filter of LIST_FILTERS) {
      expect(DECLARED_COLUMNS.map((c) => c.name)).toContain(filter.field);
      expect(grantRows).toMatch(new RegExp(`[(,] ?${filter.field} (TEXT|REAL)`));
    }
  });

  it('know which fields hold lists from the record schema', () => {
    const byParam = (param: string) => LIST_FILTERS.find((f) => f.param === param)!;
    expect(readsList(byParam('category'))).toBe(true);
    expect(readsList(byParam('funder_id'))).toBe(false);
    expect(readsList(byParam('set_aside'))).toBe(false);
  });

  it('keep the case their rule says through parsing: codes upper-cased, ids exactly as given', () => {
    const parsed = (filter: ListFilter, raw: string) => parseParams([{ name: filter.param, ...filter.spec }], { [filter.param]: [raw] }).values[filter.param];
    const setAside = LIST_FILTERS.find((f) => f.param === 'set_aside')!;
    const funderId = LIST_FILTERS.find((f) => f.param === 'funder_id')!;
    expect(parsed(setAside, 'wosb,8a')).toEqual(['WOSB', '8A']);
    expect(parsed(funderId, 'cee19b13-3563-513a-aa53-29d55c2c2e43')).toEqual(['cee19b13-3563-513a-aa53-29d55c2c2e43']);
    // A terms filter over a pattern list keeps its values in the case the engines compare them in.
    for (const filter of LIST_FILTERS) {
      if (filter.shape.type === 'terms' && filter.spec.kind.type === 'patternList') expect(filter.spec.kind.case, filter.param).toBe(filter.shape.case);
    }
  });

  it("list only their kind's filters", () => {
    expect(filtersOf('funder')).toEqual([]);
    expect(filtersOf('grant').map((f) => f.param)).not.toContain('naics');
    expect(filtersOf('contract').map((f) => f.param)).toEqual(expect.arrayContaining(['naics', 'set_aside', 'funder_id']));
  });
});

describe('range bounds as the engines compare them', () => {
  const timestamp = (op: RangeShape['op']): RangeShape => ({ type: 'range', op, of: 'timestamp' });

  it('keep a date or number bound as given', () => {
    expect(storedBound({ type: 'range', op: 'gt', of: 'date' }, '2026-03-01')).toEqual({ op: 'gt', value: '2026-03-01' });
    expect(storedBound({ type: 'range', op: 'lte', of: 'number' }, 5)).toEqual({ op: 'lte', value: 5 });
  });

  it('turn a day on a timestamp into the instant that starts it or the next one', () => {
    expect(storedBound(timestamp('gt'), '2026-02-28')).toEqual({ op: 'gte', value: '2026-03-01T00:00:00.000Z' });
    expect(storedBound(timestamp('gte'), '2026-02-28')).toEqual({ op: 'gte', value: '2026-02-28T00:00:00.000Z' });
    expect(storedBound(timestamp('lt'), '2026-02-28')).toEqual({ op: 'lt', value: '2026-02-28T00:00:00.000Z' });
    expect(storedBound(timestamp('lte'), '2026-02-28')).toEqual({ op: 'lt', value: '2026-03-01T00:00:00.000Z' });
    expect(storedBound(timestamp('gt'), '9999-12-31')).toEqual({ op: 'gte', value: '9999-12-31T23:59:59.999Z' });
  });

  it("are what parseListQuery keeps under each filter's key", () => {
    expect(declaredFilterValues('grant', { posted_after: '2026-02-28', min_amount: 10, category: 'Health', naics: ['54'] })).toEqual({
      createdFrom: '2026-03-01T00:00:00.000Z',
      minAmount: 10,
      category: 'Health',
    });
  });
});
