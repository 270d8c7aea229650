import { describe, expect, it } from 'vitest';
import { type Dsl, escapeWildcard, filterClauses, sortClauses } from '../../lambdas/adapters/aws/opensearch-filters';
import { INTERNAL_FIELDS, indexMappings, MAPPING_VERSION, vectorFieldMapping } from '../../lambdas/adapters/aws/opensearch-mappings';
import {
  floorEvidenceBodies,
  fusedFacetsBody,
  hybridPageRequest,
  hybridRankBodies,
  keywordSearchBody,
  msearchLines,
  planQuery,
  relevanceOfScore,
  semanticSearchBody,
  unfilteredCountBody,
} from '../../lambdas/adapters/aws/opensearch-query';
import { identifierClause, keywordClause, windowClause } from '../../lambdas/adapters/aws/opensearch-text-clauses';
import { FLOOR_EVIDENCE_CANDIDATES } from '../../lambdas/adapters/aws/opensearch-vector-search';
import { type ListQuery, parseListQuery } from '../../lambdas/core/query/list-query';
import type { ResourceKind } from '../../lambdas/core/records';
import { fuseHybrid } from '../../lambdas/core/search/fusion';
import { IDENTIFIER_FIELDS, identifierKey, identifierScoreOf } from '../../lambdas/core/search/identifiers';
import type { QueryFloor } from '../../lambdas/core/search/query-floor';
import type { SemanticQuery } from '../../lambdas/ports/search-index';

/**
 * The OpenSearch DSL of every list parameter, search mode and sort, as built from the same parsed
 * ListQuery the handlers pass (no domain needed: the builder is pure).
 */

const TODAY = '2026-11-22';

function q(params: Record<string, string>, kind: ResourceKind = 'grant'): ListQuery {
  return parseListQuery(kind, Object.fromEntries(Object.entries(params).map(([k, v]) => [k, [v]])), TODAY);
}

/** The filter clauses of a grant query, without the default opportunity_type=open clause. */
function filtersOf(params: Record<string, string>, kind: ResourceKind = 'grant'): Dsl[] {
  return filterClauses(q({ opportunity_type: 'all', ...params }, kind));
}

const unit = (...xs: number[]): Float32Array => {
  const norm = Math.hypot(...xs);
  return Float32Array.from(xs, (x) => x / norm);
};
/** A query vector with a scale of this floor. */
const semantic = (floor = 0.5): SemanticQuery => ({
  vector: Float32Array.of(1, 0, 0, 0),
  scale: { floor, shortFloor: floor, lexicalFloor: floor, profileFloor: floor, upper: 1 },
});
const withoutVector = (floor = 0.5): SemanticQuery => ({
  vector: null,
  scale: { floor, shortFloor: floor, lexicalFloor: floor, profileFloor: floor, upper: 1 },
});
/** A query floor (query-floor.ts) that lets semantic matches from this cosine, or none (null) on this basis. */
const floorAt = (semanticFloor: number | null, basis: QueryFloor['basis'] = semanticFloor === null ? 'none' : 'similarity'): QueryFloor => ({
  semanticFloor,
  basis,
  evidence: { bestCosine: 0.9, bestWordCosine: Number.NaN, identifierMatches: 0, words: 2 },
});
/** Three years (round(3 * 365.25) = 1096 days) before TODAY: open-ended listings created before it are stale. */
const STALE_BEFORE = '2023-11-22';
/** Any of these makes a record no longer live on TODAY (core/query/applyable.ts). */
const LAPSED = [
  { range: { deadline_date: { lt: TODAY } } },
  { range: { archive_date: { lt: TODAY } } },
  { bool: { filter: [{ term: { open_ended: true } }, { range: { created_at: { lt: STALE_BEFORE } } }] } },
];
const live = (stored: string) => ({ bool: { filter: [{ term: { status: stored } }], must_not: LAPSED } });
const lapsed = (stored: string) => ({ bool: { filter: [{ term: { status: stored } }], should: LAPSED, minimum_should_match: 1 } });
const anyOf = (...should: Dsl[]) => ({ bool: { should, minimum_should_match: 1 } });
/** The default status filter of opportunity_type=open: what can be applied for. */
const APPLYABLE_GRANTS = anyOf(live('posted'), live('forecasted'));
const SOURCE = { excludes: ['embedding', 'geography_level', 'open_ended', 'identifier_keys', 'search_text'] };
const GRANT_FIELDS = ['title^2', 'description', 'funder_name^0.5', 'search_text.programs^0.5'];
const PHRASE_FIELDS = ['title^2', 'description'];
const orOf = (query: string, fields = GRANT_FIELDS): Dsl => ({ multi_match: { query, type: 'cross_fields', fields, operator: 'or' } });
const minimumOf = (query: string, fields = GRANT_FIELDS): Dsl => ({
  multi_match: { query, type: 'cross_fields', fields, operator: 'or', minimum_should_match: '2<-34% 4<-50%' },
});
const phraseOf = (query: string, fields = PHRASE_FIELDS): Dsl => ({ multi_match: { query, type: 'phrase', slop: 2, fields, boost: 2 } });
/**
 * The word clause of terms (joined by spaces): BM25 OR of every term, holding the minimum-should-
 * match, plus a near-phrase boost from two terms on (no statistics: every term counts, none telling).
 */
const wordsDsl = (query: string, fields = GRANT_FIELDS, phraseFields = PHRASE_FIELDS): Dsl => ({
  bool: { must: [orOf(query, fields)], filter: [minimumOf(query, fields)], ...(query.includes(' ') ? { should: [phraseOf(query, phraseFields)] } : {}) },
});
/** The identifier clause of a key: a dis_max of each field's constant score. */
const identifiersDsl = (kind: ResourceKind, keys: string[], wordKeys: string[] = []): Dsl => ({
  dis_max: {
    queries: IDENTIFIER_FIELDS[kind].flatMap((field) => {
      const lookup = [...keys, ...(field.matchesWords ? wordKeys : [])];
      return lookup.length === 0
        ? []
        : [{ constant_score: { filter: { terms: { [`identifier_keys.${field.name}`]: lookup } }, boost: identifierScoreOf(field.weight) } }];
    }),
  },
});
/** A grant's keyword clause: its identifier clause (the whole text as a key) or its words. */
const keywordDsl = (text: string, terms: string): Dsl => ({
  bool: { should: [identifiersDsl('grant', [identifierKey(text)]), wordsDsl(terms)], minimum_should_match: 1 },
});

describe('filter clauses', () => {
  it('opportunity_type: open by default (and, without a status, only what can be applied for), awarded, or no clause for all', () => {
    expect(filterClauses(q({}))).toEqual([{ term: { opportunity_type: 'open' } }, APPLYABLE_GRANTS]);
    expect(filterClauses(q({}, 'contract'))).toEqual([{ term: { opportunity_type: 'open' } }, anyOf(live('open'))]);
    expect(filterClauses(q({ opportunity_type: 'awarded' }))).toEqual([{ term: { opportunity_type: 'awarded' } }]);
    expect(filterClauses(q({ opportunity_type: 'all' }))).toEqual([]);
    // An explicit status replaces the default.
    expect(filterClauses(q({ status: 'posted' }))).toEqual([{ term: { opportunity_type: 'open' } }, anyOf({ term: { status: 'posted' } })]);
  });

  it('funders have no filters', () => {
    expect(filterClauses(q({}, 'funder'))).toEqual([]);
  });

  describe('status (a disjunction of stored statuses, narrowed to the records live or lapsed on today)', () => {
    it('live: none of deadline, archive date or stale open-ended listing has lapsed; lapsed: any of them has (a missing date never lapses)', () => {
      expect(live('posted')).toEqual({
        bool: {
          filter: [{ term: { status: 'posted' } }],
          must_not: [
            { range: { deadline_date: { lt: '2026-11-22' } } },
            { range: { archive_date: { lt: '2026-11-22' } } },
            { bool: { filter: [{ term: { open_ended: true } }, { range: { created_at: { lt: '2023-11-22' } } }] } },
          ],
        },
      });
      expect(filtersOf({ status: 'open' })).toEqual([anyOf(live('posted'))]);
      expect(filtersOf({ status: 'closed' })).toContainEqual(anyOf({ term: { status: 'closed' } }, lapsed('posted'), lapsed('forecasted')));
    });

    it.each([
      ['open', [live('posted')]],
      ['posted', [{ term: { status: 'posted' } }]],
      ['closed', [{ term: { status: 'closed' } }, lapsed('posted'), lapsed('forecasted')]],
      ['forecasted', [live('forecasted')]],
      ['upcoming', [live('forecasted')]],
      ['forecasted,upcoming', [live('forecasted')]],
      ['open,closed', [live('posted'), { term: { status: 'closed' } }, lapsed('posted'), lapsed('forecasted')]],
      ['posted,forecasted', [{ term: { status: 'posted' } }, live('forecasted')]],
      ['open,upcoming', [live('posted'), live('forecasted')]],
    ])('grants, status=%s', (status, clauses) => {
      expect(filtersOf({ status })).toEqual([anyOf(...clauses)]);
    });

    it.each([
      ['open', [live('open')]],
      ['closed', [{ term: { status: 'closed' } }, lapsed('open')]],
      ['open,closed', [live('open'), { term: { status: 'closed' } }, lapsed('open')]],
    ])('contracts, status=%s (stored open, not posted)', (status, clauses) => {
      expect(filtersOf({ status }, 'contract')).toEqual([anyOf(...clauses)]);
    });
  });

  it('category: exact, case-insensitive (the field is lower-cased, so is the term)', () => {
    expect(filtersOf({ category: 'Public Safety' })).toEqual([{ term: { categories: 'public safety' } }]);
  });

  it('states: state-specific records only, or also national ones (an empty states array) with include_national', () => {
    expect(filtersOf({ states: 'TX,CA' })).toEqual([{ terms: { states: ['TX', 'CA'] } }]);
    expect(filtersOf({ states: 'TX', include_national: 'false' })).toEqual([{ terms: { states: ['TX'] } }]);
    expect(filtersOf({ states: 'TX', include_national: 'true' })).toEqual([
      anyOf({ terms: { states: ['TX'] } }, { bool: { must_not: [{ exists: { field: 'states' } }] } }),
    ]);
    // include_national alone filters nothing, as in the embedded index.
    expect(filtersOf({ include_national: 'true' })).toEqual([]);
  });

  describe('geography (deprecated, best effort)', () => {
    it.each(['national', 'state', 'local', 'international', 'National'])('a level (%s) matches the derived geography_level', (geography) => {
      expect(filtersOf({ geography })).toEqual([{ term: { geography_level: geography.toLowerCase() } }]);
    });

    it('a place naming states matches those states (never national records)', () => {
      expect(filtersOf({ geography: 'Austin, TX' })).toEqual([{ terms: { states: ['TX'] } }]);
      expect(filtersOf({ geography: 'New York and New Jersey' })).toEqual([{ terms: { states: ['NJ', 'NY'] } }]);
    });

    it('other text is a case-insensitive substring of the geography, wildcard characters taken literally', () => {
      expect(filtersOf({ geography: 'Pacific Islands' })).toEqual([{ wildcard: { 'geography.sort': { value: '*pacific islands*', case_insensitive: true } } }]);
      expect(filtersOf({ geography: 'a*b?c\\d' })).toEqual([{ wildcard: { 'geography.sort': { value: '*a\\*b\\?c\\\\d*', case_insensitive: true } } }]);
      expect(escapeWildcard('*?\\')).toBe('\\*\\?\\\\');
    });
  });

  it('deadline_after / deadline_before: strictly after / before (a null deadline never matches)', () => {
    expect(filtersOf({ deadline_after: '2027-01-01' })).toEqual([{ range: { deadline_date: { gt: '2027-01-01' } } }]);
    expect(filtersOf({ deadline_before: '2027-06-30' })).toEqual([{ range: { deadline_date: { lt: '2027-06-30' } } }]);
    expect(filtersOf({ deadline_after: '2027-01-01', deadline_before: '2027-06-30' })).toEqual([
      { range: { deadline_date: { gt: '2027-01-01' } } },
      { range: { deadline_date: { lt: '2027-06-30' } } },
    ]);
  });

  it('posted_after: created from the next day at 00:00 UTC, inclusive', () => {
    expect(filtersOf({ posted_after: '2026-03-31' })).toEqual([{ range: { created_at: { gte: '2026-04-01T00:00:00.000Z' } } }]);
  });

  it('min_amount on amount_max >=, max_amount on amount_min <= (nulls never match a range)', () => {
    expect(filtersOf({ min_amount: '50000' })).toEqual([{ range: { amount_max: { gte: 50000 } } }]);
    expect(filtersOf({ max_amount: '250000' })).toEqual([{ range: { amount_min: { lte: 250000 } } }]);
    expect(filtersOf({ min_amount: '0' })).toEqual([{ range: { amount_max: { gte: 0 } } }]);
  });

  it('naics: whole codes as terms, shorter ones as prefixes, any of them', () => {
    expect(filtersOf({ naics: '541512' }, 'contract')).toEqual([anyOf({ terms: { naics: ['541512'] } })]);
    expect(filtersOf({ naics: '54' }, 'contract')).toEqual([anyOf({ prefix: { naics: '54' } })]);
    expect(filtersOf({ naics: '541512,336,23' }, 'contract')).toEqual([
      anyOf({ terms: { naics: ['541512'] } }, { prefix: { naics: '336' } }, { prefix: { naics: '23' } }),
    ]);
  });

  it('set_aside: any of the codes, upper-case (the field has an uppercase normalizer)', () => {
    expect(filtersOf({ set_aside: 'SBA,8A' }, 'contract')).toEqual([{ terms: { set_aside_code: ['SBA', '8A'] } }]);
    expect(filterClauses({ today: TODAY, filters: { opportunityType: 'all', includeNational: false, setAside: ['wosb'] } })).toEqual([
      { terms: { set_aside_code: ['WOSB'] } },
    ]);
  });

  it('funder_id: any of the ids, exactly as given (the field is a plain keyword)', () => {
    const ids = '13c1d59c-bcf1-5b4d-8b58-b0656c61ba94,cee19b13-3563-513a-aa53-29d55c2c2e43';
    expect(filtersOf({ funder_id: ids })).toEqual([{ terms: { funder_id: ids.split(',') } }]);
    expect(filtersOf({ funder_id: ids }, 'contract')).toEqual([{ terms: { funder_id: ids.split(',') } }]);
  });

  it('applicant (grant matching): the type listed or no type listed; without 501(c)(3), no grant that requires it', () => {
    const missingTypes = { bool: { must_not: [{ exists: { field: 'eligible_applicants' } }] } };
    expect(
      filterClauses({ today: TODAY, filters: { opportunityType: 'all', includeNational: false, applicant: { type: 'tribal', lacks501c3: false } } }),
    ).toEqual([anyOf({ term: { eligible_applicants: 'tribal' } }, missingTypes)]);
    expect(
      filterClauses({ today: TODAY, filters: { opportunityType: 'all', includeNational: false, applicant: { type: 'nonprofit', lacks501c3: true } } }),
    ).toEqual([anyOf({ term: { eligible_applicants: 'nonprofit' } }, missingTypes), { bool: { must_not: [{ term: { requires_501c3: true } }] } }]);
  });

  it('combines every filter as one clause each (all must hold)', () => {
    const clauses = filterClauses(
      q(
        {
          status: 'open',
          category: 'Water',
          states: 'TX',
          include_national: 'true',
          geography: 'local',
          deadline_after: '2026-12-01',
          deadline_before: '2027-12-01',
          posted_after: '2026-01-01',
          min_amount: '1',
          max_amount: '2',
          naics: '54',
          set_aside: 'SBA',
          funder_id: '13c1d59c-bcf1-5b4d-8b58-b0656c61ba94',
        },
        'contract',
      ),
    );
    expect(clauses).toHaveLength(13);
    expect(clauses[0]).toEqual({ term: { opportunity_type: 'open' } });
  });
});

describe('sort clauses', () => {
  it.each([
    ['created_at', 'created_at'],
    ['deadline_date', 'deadline_date'],
    ['amount_min', 'amount_min'],
    ['amount_max', 'amount_max'],
    ['title', 'title.sort'],
  ] as const)('%s sorts on %s, missing values last in both orders, ties by id in the same order', (field, indexed) => {
    // Dates: missing ones sort as years 9999 and 1, values a cursor carries back exactly (search_after).
    const missing = (order: 'asc' | 'desc') =>
      field === 'created_at' || field === 'deadline_date' ? (order === 'asc' ? 253_402_214_400_000 : -62_135_596_800_000) : '_last';
    expect(sortClauses({ field, order: 'asc' })).toEqual([{ [indexed]: { order: 'asc', missing: missing('asc') } }, { id: { order: 'asc' } }]);
    expect(sortClauses({ field, order: 'desc' })).toEqual([{ [indexed]: { order: 'desc', missing: missing('desc') } }, { id: { order: 'desc' } }]);
    expect(new Date(253_402_214_400_000).toISOString()).toBe('9999-12-31T00:00:00.000Z');
    expect(new Date(-62_135_596_800_000).toISOString()).toBe('0001-01-01T00:00:00.000Z');
  });

  it('funders sort by name on its lower-cased keyword', () => {
    expect(sortClauses(q({}, 'funder').sort)).toEqual([{ 'name.sort': { order: 'asc', missing: '_last' } }, { id: { order: 'asc' } }]);
    expect(sortClauses(q({ sort_by: 'created_at' }, 'funder').sort)).toEqual([
      { created_at: { order: 'desc', missing: -62_135_596_800_000 } },
      { id: { order: 'desc' } },
    ]);
  });

  it('relevance: score descending then id ascending; ascending is the exact reverse', () => {
    expect(sortClauses({ field: 'relevance', order: 'desc' })).toEqual([{ _score: { order: 'desc' } }, { id: { order: 'asc' } }]);
    expect(sortClauses({ field: 'relevance', order: 'asc' })).toEqual([{ _score: { order: 'asc' } }, { id: { order: 'desc' } }]);
  });

  it('defaults: created_at desc without search, relevance desc with it, an explicit sort_by wins', () => {
    expect(keywordSearchBody('grant', q({}))!.sort).toEqual(sortClauses({ field: 'created_at', order: 'desc' }));
    expect(keywordSearchBody('grant', q({ search: 'water' }))!.sort).toEqual(sortClauses({ field: 'relevance', order: 'desc' }));
    expect(keywordSearchBody('grant', q({ search: 'water', sort_by: 'deadline_date', order: 'asc' }))!.sort).toEqual(
      sortClauses({ field: 'deadline_date', order: 'asc' }),
    );
  });
});

describe('keyword search', () => {
  it('cross-field BM25 over the weighted fields, OR with a minimum-should-match, a sloppy phrase boost from two terms on, beside the identifier fields', () => {
    expect(keywordClause('grant', 'Police equipment')).toEqual(keywordDsl('Police equipment', 'police equipment'));
    expect(keywordClause('contract', 'cyber security')).toEqual({
      bool: { should: [identifiersDsl('contract', ['CYBERSECURITY']), wordsDsl('cyber security')], minimum_should_match: 1 },
    });
    // Funders have no identifier fields, and their own keyword fields.
    expect(keywordClause('funder', 'science foundation')).toEqual(wordsDsl('science foundation', ['name^2', 'summary'], ['name^2', 'summary']));
  });

  it('one term has no phrase to boost', () => {
    expect(keywordClause('grant', 'Water')).toEqual(keywordDsl('Water', 'water'));
    expect(keywordClause('funder', 'science')).toEqual(wordsDsl('science', ['name^2', 'summary']));
  });

  it('an identifier is looked up whole in every field and, in a short query, by its words with a digit in the fields that take words', () => {
    expect(identifierClause('grant', 'par 25 098')).toEqual(identifiersDsl('grant', ['PAR25098'], ['25', '098']));
    expect(identifierClause('grant', 'CFDA 93.262')).toEqual(identifiersDsl('grant', ['CFDA93.262'], ['93.262']));
    expect(identifierClause('contract', 'NAICS 336611')).toEqual(identifiersDsl('contract', ['NAICS336611'], ['336611']));
    // The title's codes are matched by the whole text only.
    expect(JSON.stringify(identifierClause('contract', 'NAICS 336611'))).toContain('"identifier_keys.title_code":["NAICS336611"]');
    expect(identifierClause('funder', 'NSF')).toBeNull();
    expect(identifierClause('grant', '!!!')).toBeNull();
  });

  it('words with the same stem are sent once ("program programs" is one term)', () => {
    expect(keywordClause('grant', 'program programs')).toEqual(keywordDsl('program programs', 'program'));
    expect(keywordClause('grant', 'Housing houses rural')).toEqual(keywordDsl('Housing houses rural', 'housing rural'));
  });

  it("drops stop words (Lucene's English set included) and catalogue-wide words; a text of more than three words is an identifier only with a digit", () => {
    expect(keywordClause('grant', 'grants for the police')).toEqual(wordsDsl('police'));
    expect(keywordClause('grant', 'the police')).toEqual(keywordDsl('the police', 'police'));
    expect(keywordClause('grant', 'the grants for a funding opportunity')).toBeNull();
    // A longer text with a digit may be an identifier typed with spaces.
    expect(keywordClause('grant', 'hhs 2025 acf ocs 0042')).toEqual(keywordDsl('hhs 2025 acf ocs 0042', 'hhs 2025 acf ocs 0042'));
    expect(keywordClause('grant', 'the grant')).toEqual(identifiersDsl('grant', ['THEGRANT']));
    expect(keywordSearchBody('funder', q({ search: 'of the and' }, 'funder'))).toBeNull();
    expect(planQuery('grant', q({ search: '!!! ???' }), WINDOW)).toEqual({ type: 'none' });
  });

  it('telling terms: a full match holds one; records that miss the minimum but hold one are partial matches', () => {
    const statistics = {
      frequency: new Map([
        ['police', 30],
        ['equipment', 40],
        ['programs', 600],
      ]),
      documents: 1000,
    };
    const words = keywordClause('funder', 'police equipment programs', statistics);
    const funderFields = ['name^2', 'summary'];
    const full = { bool: { filter: [minimumOf('police equipment programs', funderFields), orOf('police equipment', funderFields)] } };
    expect(words).toEqual({
      bool: {
        must: [orOf('police equipment programs', funderFields)],
        filter: [{ bool: { should: [full, orOf('police equipment', funderFields)], minimum_should_match: 1 } }],
        should: [phraseOf('police equipment programs', funderFields)],
      },
    });
  });

  it.each([
    ['"police equipment"', 'police equipment'],
    ['police*', 'police'],
    ['title:police', 'title police'],
    ['(police OR fire) AND equipment', 'police fire equipment'],
    ['police NEAR equipment', 'police near equipment'],
    ['police -fire', 'police fire'],
    ['police +fire ~2 ^3 [a TO z] {x} \\ / ! ?', 'police fire 2 3 z x'],
    ['police 🚓 equipment 🔥', 'police equipment'],
    ['Café résumé', 'cafe resume'],
  ])('query syntax is plain text: %s -> "%s"', (text, terms) => {
    const body = keywordSearchBody('funder', q({ search: text }, 'funder'));
    expect(body!.query).toEqual({ bool: { must: [wordsDsl(terms, ['name^2', 'summary'], ['name^2', 'summary'])] } });
    const grants = JSON.stringify(keywordSearchBody('grant', q({ search: text })));
    expect(grants).not.toContain('query_string');
    expect(grants).not.toMatch(/"(wildcard|regexp|prefix|fuzzy)"/);
  });

  it('the full body: bool must + filter, sort, from/size, exact total, _source without the index fields', () => {
    expect(keywordSearchBody('grant', q({ search: 'water', states: 'TX', limit: '10', offset: '30' }))).toEqual({
      query: {
        bool: {
          must: [keywordDsl('water', 'water')],
          filter: [{ term: { opportunity_type: 'open' } }, APPLYABLE_GRANTS, { terms: { states: ['TX'] } }],
        },
      },
      sort: [{ _score: { order: 'desc' } }, { id: { order: 'asc' } }],
      from: 30,
      size: 10,
      track_total_hits: true,
      _source: SOURCE,
    });
  });

  it('a listing without search is the filters alone; with no filter at all, match_all', () => {
    expect(keywordSearchBody('grant', q({ status: 'forecasted' }))!.query).toEqual({
      bool: { filter: [{ term: { opportunity_type: 'open' } }, anyOf(live('forecasted'))] },
    });
    expect(keywordSearchBody('funder', q({}, 'funder'))).toEqual({
      query: { match_all: {} },
      sort: [{ 'name.sort': { order: 'asc', missing: '_last' } }, { id: { order: 'asc' } }],
      from: 0,
      size: 20,
      track_total_hits: true,
      _source: { excludes: ['embedding', 'identifier_keys', 'search_text'] },
    });
  });

  it('count_only asks for the exact total and no hits', () => {
    const body = keywordSearchBody('grant', q({ search: 'water', count_only: 'true' }))!;
    expect(body).toMatchObject({ size: 0, track_total_hits: true });
    expect(body).not.toHaveProperty('sort');
    expect(body).not.toHaveProperty('from');
  });

  it('offset and limit are from and size', () => {
    expect(keywordSearchBody('grant', q({ limit: '100', offset: '10000' }))).toMatchObject({ from: 10000, size: 100 });
    expect(keywordSearchBody('grant', q({ limit: '1' }))).toMatchObject({ from: 0, size: 1 });
  });
});

/** The window of nearest candidates semantic and hybrid search rank (VectorSearchSettings.window). */
const WINDOW = 1_000;

/** The k-NN query windowClause builds: the nearest k records passing the filters (inside the graph search), those under the floor dropped. */
function windowSearch(vector: number[], minScore: number | null, filters: unknown[] = [], k = WINDOW) {
  const knn = { knn: { embedding: { vector, k, ...(filters.length > 0 ? { filter: { bool: { filter: filters } } } : {}) } } };
  return minScore === null ? knn : { function_score: { query: knn, min_score: minScore } };
}
const minScoreOf = (clause: unknown) => (clause as { function_score: { min_score: number } }).function_score.min_score;

describe('semantic search', () => {
  it('the window of nearest candidates, the floor as an OpenSearch cosinesimil score, (1 + cos) / 2', () => {
    expect(windowClause(Float32Array.of(0.5, 0.5, 0.5, 0.5), 0.3, [], 50)).toEqual(windowSearch([0.5, 0.5, 0.5, 0.5], 0.65, [], 50));
    expect(minScoreOf(windowClause(Float32Array.of(1), 0.8, [], 10))).toBeCloseTo(0.9, 12);
    expect(minScoreOf(windowClause(Float32Array.of(1), 0, [], 10))).toBe(0.5);
    expect(windowClause(Float32Array.of(1), null, [], 10)).toEqual({ knn: { embedding: { vector: [1], k: 10 } } });
  });

  it('the filters go inside the k-NN query (the engine filters while it searches the graph, exactly when few pass them): no post-filter, no radial search', () => {
    const body = semanticSearchBody(
      'grant',
      q({ search: 'policing', search_mode: 'semantic', states: 'TX', status: 'open' }),
      semantic(0.5),
      floorAt(0.5),
      WINDOW,
    )!;
    expect(body.query).toEqual(
      windowSearch([1, 0, 0, 0], 0.75, [{ term: { opportunity_type: 'open' } }, anyOf(live('posted')), { terms: { states: ['TX'] } }]),
    );
    expect(JSON.stringify(body)).not.toMatch(/post_filter|"distance":|script_score/);
  });

  it('the full body: relevance order, from/size, exact total, _source without the vector', () => {
    expect(
      semanticSearchBody('funder', q({ search: 'science', search_mode: 'semantic', limit: '5', offset: '5' }, 'funder'), semantic(0.3), floorAt(0.3), WINDOW),
    ).toEqual({
      query: windowSearch([1, 0, 0, 0], 0.65),
      sort: [{ _score: { order: 'desc' } }, { id: { order: 'asc' } }],
      from: 5,
      size: 5,
      track_total_hits: true,
      _source: { excludes: ['embedding', 'identifier_keys', 'search_text'] },
    });
    // The floor of the query, not the scale's: a query answered on its words reaches lower.
    expect(
      minScoreOf(semanticSearchBody('grant', q({ search: 'x', search_mode: 'semantic' }), semantic(0.6), floorAt(0.4, 'words'), WINDOW)!.query),
    ).toBeCloseTo(0.7, 12);
  });

  it('an explicit sort field keeps the scores (track_scores), so relevance is still known', () => {
    const body = semanticSearchBody(
      'grant',
      q({ search: 'x', search_mode: 'semantic', sort_by: 'amount_max', order: 'asc' }),
      semantic(),
      floorAt(0.5),
      WINDOW,
    )!;
    expect(body.sort).toEqual([{ amount_max: { order: 'asc', missing: '_last' } }, { id: { order: 'asc' } }]);
    expect(body.track_scores).toBe(true);
    expect(semanticSearchBody('grant', q({ search: 'x', search_mode: 'semantic' }), semantic(), floorAt(0.5), WINDOW)).not.toHaveProperty('track_scores');
  });

  it('count_only: size 0 and the exact total', () => {
    const body = semanticSearchBody('grant', q({ search: 'x', search_mode: 'semantic', count_only: 'true' }), semantic(), floorAt(0.5), WINDOW)!;
    expect(body).toMatchObject({ size: 0, track_total_hits: true });
    expect(body).not.toHaveProperty('sort');
    expect(body).not.toHaveProperty('track_scores');
  });

  it('a null (or zero) vector, or a query with no semantic floor (off topic), matches nothing: no request', () => {
    expect(semanticSearchBody('grant', q({ search: 'x', search_mode: 'semantic' }), withoutVector(), floorAt(0.5), WINDOW)).toBeNull();
    expect(planQuery('grant', q({ search: 'x', search_mode: 'semantic' }), WINDOW, withoutVector())).toEqual({ type: 'none' });
    expect(
      planQuery('grant', q({ search: 'x', search_mode: 'semantic' }), WINDOW, { ...semantic(), vector: new Float32Array(4) }, undefined, floorAt(0.5)),
    ).toEqual({ type: 'none' });
    expect(planQuery('grant', q({ search: 'x', search_mode: 'semantic' }), WINDOW, semantic(), undefined, floorAt(null))).toEqual({ type: 'none' });
    expect(planQuery('grant', q({ search: 'x', search_mode: 'semantic' }), WINDOW, semantic(), undefined, floorAt(null, 'identifier'))).toEqual({
      type: 'none',
    });
  });

  it("relevance is the cosine, 2 * score - 1, on the embedder's scale: 0.5 at the floor, 1 at the upper reference", () => {
    const scale = { floor: 0.6, shortFloor: 0.6, lexicalFloor: 0.6, profileFloor: 0.4, upper: 0.8 };
    expect(relevanceOfScore(0.8, scale)).toBe(0.5); // cosine 0.6
    expect(relevanceOfScore(0.88, scale)).toBe(0.9); // cosine 0.76
    expect(relevanceOfScore(0.9, scale)).toBe(1); // cosine 0.8
    expect(relevanceOfScore(1.0000001, scale)).toBe(1);
    expect(relevanceOfScore(0.5, scale)).toBe(0);
  });

  it('the semantic and hybrid modes need the query vector', () => {
    expect(() => planQuery('grant', q({ search: 'x', search_mode: 'semantic' }), WINDOW)).toThrow('needs the query vector');
    expect(() => planQuery('grant', q({ search: 'x', search_mode: 'hybrid' }), WINDOW)).toThrow('needs the query vector');
  });
});

describe('hybrid search', () => {
  // By score alone (Lucene then skips what cannot reach the window), with no total: the fusion needs both lists' scores.
  const idsOnly = { size: WINDOW, _source: false, stored_fields: '_none_', docvalue_fields: ['id'], track_total_hits: false };

  it("two lists (ids and scores) to the window, best first, with the same filters: keyword (bool) and semantic at the query's floor; no count of their union", () => {
    const query = q({ search: 'police equipment', search_mode: 'hybrid', states: 'TX', sort_by: 'title', limit: '5' });
    const bodies = hybridRankBodies('grant', query, semantic(0.5), floorAt(0.4, 'words'), WINDOW);
    const filters = [{ term: { opportunity_type: 'open' } }, APPLYABLE_GRANTS, { terms: { states: ['TX'] } }];
    const keywordQuery = { bool: { must: [keywordDsl('police equipment', 'police equipment')], filter: filters } };
    const knnQuery = windowSearch([1, 0, 0, 0], 0.7, filters);
    expect(bodies.keyword).toEqual({ query: keywordQuery, ...idsOnly });
    expect(bodies.semantic).toEqual({ query: knnQuery, ...idsOnly });
    expect(planQuery('grant', query, WINDOW, semantic(0.5), undefined, floorAt(0.4, 'words'))).toEqual({
      type: 'hybrid',
      bodies: [bodies.keyword, bodies.semantic],
      lists: ['keyword', 'semantic'],
    });
    // Facets count the fused set, its ids sent to the cluster.
    expect(fusedFacetsBody('grant', q({ search: 'x', search_mode: 'hybrid', facets: 'status' }), ['a', 'b'])).toMatchObject({
      query: { bool: { filter: [{ ids: { values: ['a', 'b'] } }] } },
      size: 0,
      aggs: { facet_status: expect.any(Object) },
    });
  });

  it('off topic (no basis for a floor), nothing at all whatever the words match; on an identifier alone, the keyword list alone', () => {
    const query = q({ search: 'police equipment', search_mode: 'hybrid' });
    expect(planQuery('grant', query, WINDOW, semantic(0.5), undefined, floorAt(null, 'none'))).toEqual({ type: 'none' });
    const identifier = hybridRankBodies('grant', query, semantic(0.5), floorAt(null, 'identifier'), WINDOW);
    expect(identifier.semantic).toBeNull();
    expect(planQuery('grant', query, WINDOW, semantic(0.5), undefined, floorAt(null, 'identifier'))).toEqual({
      type: 'hybrid',
      bodies: [identifier.keyword],
      lists: ['keyword'],
    });
  });

  it('one _msearch: an empty header (the index is in the path) before each body', () => {
    expect(msearchLines([{ a: 1 }, { b: 2 }])).toEqual([{}, { a: 1 }, {}, { b: 2 }]);
  });

  it('a null vector (the model did not answer) leaves the keyword list alone, with no floor; no keyword term leaves the semantic list; neither means no request', () => {
    const keywordOnly = q({ search: 'police', search_mode: 'hybrid' });
    const keywordLists = hybridRankBodies('grant', keywordOnly, withoutVector(), null, WINDOW);
    expect(planQuery('grant', keywordOnly, WINDOW, withoutVector())).toEqual({ type: 'hybrid', bodies: [keywordLists.keyword], lists: ['keyword'] });
    const semanticOnly = q({ search: 'the', search_mode: 'hybrid' }, 'funder');
    const semanticLists = hybridRankBodies('funder', semanticOnly, semantic(), floorAt(0.5), WINDOW);
    expect(semanticLists.keyword).toBeNull();
    expect(planQuery('funder', semanticOnly, WINDOW, semantic(), undefined, floorAt(0.5))).toEqual({
      type: 'hybrid',
      bodies: [semanticLists.semantic],
      lists: ['semantic'],
    });
    expect(hybridRankBodies('funder', semanticOnly, withoutVector(), null, WINDOW)).toEqual({ keyword: null, semantic: null });
    expect(planQuery('funder', semanticOnly, WINDOW, withoutVector())).toEqual({ type: 'none' });
  });

  it("the query floor's evidence, over the whole kind with no filter: the best cosine, the best among the full keyword matches (every word known), the identifier matches", () => {
    const statistics = {
      frequency: new Map([
        ['police', 30],
        ['equipment', 40],
      ]),
      documents: 1000,
    };
    const best = (filters: Dsl[]) => ({
      query: windowSearch([1, 0, 0, 0], null, filters, FLOOR_EVIDENCE_CANDIDATES),
      size: 1,
      _source: false,
      track_total_hits: false,
    });
    const { bodies, reads } = floorEvidenceBodies('grant', 'police equipment', semantic(), statistics);
    expect(reads).toEqual(['best', 'words', 'identifiers']);
    expect(JSON.parse(JSON.stringify(bodies[0]))).toEqual(JSON.parse(JSON.stringify(best([]))));
    expect(JSON.parse(JSON.stringify(bodies[1]))).toEqual(JSON.parse(JSON.stringify(best([minimumOf('police equipment')]))));
    expect(bodies[2]).toEqual({ query: identifiersDsl('grant', ['POLICEEQUIPMENT']), size: 0, track_total_hits: true });
    // A word no record holds: no lexical evidence (pizza delivery is not "delivery").
    expect(floorEvidenceBodies('grant', 'police zzkv', semantic(), statistics).reads).toEqual(['best', 'identifiers']);
    expect(floorEvidenceBodies('funder', 'police', withoutVector(), statistics)).toEqual({ bodies: [], reads: [] });
  });

  it("without filters, the count of what an empty answer's search matches", () => {
    const query = q({ search: 'police', search_mode: 'semantic', states: 'TX' });
    expect(unfilteredCountBody('grant', 'police', 'semantic', semantic(), floorAt(0.5), WINDOW)).toEqual({
      query: { bool: { should: [windowSearch([1, 0, 0, 0], 0.75)], minimum_should_match: 1 } },
      size: 0,
      track_total_hits: true,
    });
    expect(unfilteredCountBody('grant', 'police', 'keyword', undefined, null, WINDOW)).toEqual({
      query: { bool: { should: [keywordDsl('police', 'police')], minimum_should_match: 1 } },
      size: 0,
      track_total_hits: true,
    });
    expect(unfilteredCountBody('funder', '!!!', 'hybrid', semantic(), floorAt(null), WINDOW)).toBeNull();
    expect(query.filters).not.toBeNull();
  });

  const fused = fuseHybrid(
    [
      { key: 'a', score: 9 },
      { key: 'b', score: 6 },
      { key: 'c', score: 3 },
    ],
    [
      { key: 'c', cosine: 0.9 },
      { key: 'd', cosine: 0.85 },
    ],
    { floor: 0.5, shortFloor: 0.5, lexicalFloor: 0.5, profileFloor: 0.4, upper: 1 },
  );

  it('in relevance order, the page is a slice of the fused ids (ascending the exact reverse), fetched by id', () => {
    // c: 0.7 x 0.9 + 0.3 x 3/9; d: 0.7 x 0.85; a: 0.3 x 9/9; b: 0.3 x 6/9.
    expect(fused.map((hit) => hit.key)).toEqual(['c', 'd', 'a', 'b']);
    expect(hybridPageRequest('grant', q({ search: 'x', search_mode: 'hybrid', limit: '2', offset: '1' }), fused)).toMatchObject({
      body: { query: { ids: { values: ['d', 'a'] } }, size: 2, track_total_hits: false, _source: SOURCE },
      ids: ['d', 'a'],
      start: 1,
    });
    expect(hybridPageRequest('grant', q({ search: 'x', search_mode: 'hybrid', order: 'asc', limit: '3' }), fused).ids).toEqual(['b', 'a', 'd']);
  });

  it('sorted by a field, the index sorts and pages the fused set (an ids filter)', () => {
    expect(
      hybridPageRequest('grant', q({ search: 'x', search_mode: 'hybrid', sort_by: 'deadline_date', order: 'asc', limit: '2', offset: '2' }), fused),
    ).toEqual({
      body: {
        query: { bool: { filter: [{ ids: { values: ['c', 'd', 'a', 'b'] } }] } },
        sort: [{ deadline_date: { order: 'asc', missing: 253_402_214_400_000 } }, { id: { order: 'asc' } }],
        from: 2,
        size: 2,
        track_total_hits: false,
        _source: SOURCE,
      },
    });
  });
});

describe('index mapping', () => {
  const space = { embedder: 'bedrock:amazon.titan-embed-text-v2:0', dimensions: 512 };

  it('a knn_vector of the configured dimension: Lucene HNSW, cosinesimil', () => {
    expect(vectorFieldMapping(space)).toEqual({
      type: 'knn_vector',
      dimension: 512,
      method: { name: 'hnsw', engine: 'lucene', space_type: 'cosinesimil', parameters: { m: 16, ef_construction: 128 } },
    });
  });

  it('records the vector space in _meta, keeps internal fields out of _source, and sorts text on a lower-cased keyword', () => {
    const mapping = indexMappings('grant', space) as {
      dynamic: boolean;
      _source: unknown;
      _meta: unknown;
      properties: Record<string, Record<string, unknown>>;
    };
    expect(mapping.dynamic).toBe(false);
    expect(mapping._meta).toEqual({ vector_space: { embedder: 'bedrock:amazon.titan-embed-text-v2:0', dimensions: 512 }, mapping_version: MAPPING_VERSION });
    expect(mapping._source).toEqual({ excludes: [...INTERNAL_FIELDS.grant] });
    expect(mapping.properties.embedding).toEqual(vectorFieldMapping(space));
    expect(mapping.properties.title).toMatchObject({ type: 'text', analyzer: 'english', fields: { sort: { type: 'keyword', normalizer: 'lowercase' } } });
    expect(mapping.properties.geography).toMatchObject({ fields: { sort: { type: 'keyword', normalizer: 'lowercase' } } });
    expect(mapping.properties.geography_level).toEqual({ type: 'keyword' });
    // The liveness fields: the source's archive date, and whether the listing is open-ended (no real deadline).
    expect(mapping.properties.archive_date).toEqual({ type: 'date', format: 'strict_date_optional_time' });
    expect(mapping.properties.open_ended).toEqual({ type: 'boolean' });
    expect(INTERNAL_FIELDS.grant).toEqual(['embedding', 'geography_level', 'open_ended', 'identifier_keys', 'search_text']);
    expect(INTERNAL_FIELDS.contract).toEqual(['embedding', 'geography_level', 'open_ended', 'identifier_keys', 'search_text']);
    // One keyword field per identifier field, and the programs text keyword search reads.
    expect(mapping.properties.identifier_keys).toEqual({
      properties: {
        agency_code: { type: 'keyword' },
        opportunity_number: { type: 'keyword' },
        assistance_listing: { type: 'keyword' },
        title_code: { type: 'keyword' },
      },
    });
    expect(mapping.properties.search_text).toEqual({ properties: { programs: { type: 'text', analyzer: 'english' } } });
    // Categories filter on the lower-cased keyword (their analysed copy is no longer searched, but stays in the mapping: a field is never removed from an index).
    expect(mapping.properties.categories).toEqual({ type: 'keyword', normalizer: 'lowercase', fields: { text: { type: 'text', analyzer: 'english' } } });
    expect((indexMappings('funder', space) as { properties: Record<string, unknown> }).properties.name).toMatchObject({
      fields: { sort: { normalizer: 'lowercase' } },
    });
    expect((indexMappings('contract', space) as { properties: Record<string, unknown> }).properties.set_aside_code).toEqual({
      type: 'keyword',
      normalizer: 'uppercase',
    });
  });

  it('unit vectors pass through as numbers', () => {
    expect(
      (windowClause(unit(3, 4), null, [], 10) as { knn: { embedding: { vector: number[] } } }).knn.embedding.vector.map((x) => Math.round(x * 1e6) / 1e6),
    ).toEqual([0.6, 0.8]);
  });
});
