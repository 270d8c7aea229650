import { describe, expect, it } from 'vitest';
import type { Contract } from '../../lambdas/core/records';
import {
  IDENTIFIER_FIELD_STEP,
  IDENTIFIER_MATCH_SCORE,
  identifierKey,
  identifierKeysOf,
  identifierQueryOf,
  identifierScoreOf,
  lookupKeysOf,
  titleCodesOf,
} from '../../lambdas/core/search/identifiers';
import { keywordFieldsOf } from '../../lambdas/core/search/keyword-fields';
import { noResultsOf, searchableText } from '../../lambdas/core/search/no-results';
import { answersHybrid, FLOOR_SPREAD, type FloorEvidence, fixedQueryFloor, queryFloorOf } from '../../lambdas/core/search/query-floor';
import type { SimilarityScale } from '../../lambdas/core/search/relevance';
import { fixtureContract } from '../support/record-fixtures';
import { grant } from './match-fixtures';

function contract(extra: Partial<Contract>): Contract {
  return fixtureContract(1, {
    title: 'Janitorial services',
    description: 'Solicitation notice.',
    funder_id: '00000000-0000-4000-8000-999999999999',
    funder_name: 'Department of the Army',
    created_at: '2026-10-01T00:00:00.000Z',
    source_id: 'n1',
    ...extra,
  });
}

/** How the search reads a query before any index does: identifiers, its floor, and why an answer is empty. */

describe('identifier keys', () => {
  it('are upper case, letters, digits and inner dots only, so spacing, case and hyphens do not matter', () => {
    expect(identifierKey('par-25-098 ')).toBe('PAR25098');
    expect(identifierKey('PAR 25 098')).toBe('PAR25098');
    expect(identifierKey('Ｒ０１')).toBe('R01');
    expect(identifierKey('93.242.')).toBe('93.242');
    expect(identifierKey('"HHS-NIH11"*')).toBe('HHSNIH11');
    expect(identifierKey('🚀')).toBe('');
  });

  it('read codes from a title: a letter and two digits or more in six characters or more', () => {
    expect(titleCodesOf('Sources Sought 36C24827Q0012 (Janitorial)')).toEqual(['36C24827Q0012']);
    expect(titleCodesOf('W912DY-26-R-0012, Range support')).toEqual(['W912DY-26-R-0012']);
    expect(titleCodesOf('Vaccine research in 2026, phase II (R01)')).toEqual([]);
    // A code-like name is one too; it is matched by a whole query only (lookupKeysOf), never by a word of a longer one.
    expect(titleCodesOf('COVID-19 vaccine research')).toEqual(['COVID-19']);
  });

  it('of a grant: its agency code and each part with and without digits, its opportunity number, its listings and title codes', () => {
    const record = grant({
      source_id: 'PAR-25-098',
      agency_code: 'HHS-NIH11',
      title: 'Pilot studies (R01)',
      assistance_listings: [{ number: '93.242', program_title: 'Mental Health Research Grants' }],
    });
    expect(identifierKeysOf('grant', record)).toEqual({
      agency_code: ['HHSNIH11', 'HHS', 'NIH11', 'NIH'],
      opportunity_number: ['PAR25098'],
      assistance_listing: ['93.242'],
      title_code: [],
    });
  });

  it('of a contract: solicitation and notice numbers, NAICS and PSC codes, and a code in its title', () => {
    const record = contract({
      source_id: 'abc123def456',
      solicitation_number: 'W912DY-26-R-0012',
      naics: '561720',
      psc_code: 'S201',
      title: 'W912DY-26-R-0012 Janitorial services',
    });
    expect(identifierKeysOf('contract', record)).toEqual({
      solicitation_number: ['W912DY26R0012'],
      notice_id: ['ABC123DEF456'],
      naics: ['561720'],
      psc_code: ['S201'],
      title_code: ['W912DY26R0012'],
    });
  });
});

describe('an identifier query', () => {
  it('is the whole text of at most three words or with a digit, and in a text of at most three words each word with a digit', () => {
    expect(identifierQueryOf('par 25 098')).toEqual({ whole: 'PAR25098', words: ['25', '098'] });
    expect(identifierQueryOf('CFDA 93.262')).toEqual({ whole: 'CFDA93.262', words: ['93.262'] });
    expect(identifierQueryOf('R01')).toEqual({ whole: 'R01', words: [] });
    expect(identifierQueryOf('youth')).toEqual({ whole: 'YOUTH', words: [] });
    expect(identifierQueryOf('hhs 2025 acf ocs ee 0042')).toEqual({ whole: 'HHS2025ACFOCSEE0042', words: [] });
    expect(identifierQueryOf('grants in 2026 for 500 clinics')).toEqual({ whole: 'GRANTSIN2026FOR500CLINICS', words: [] });
  });

  it('is nothing for a sentence without a digit, a one-character text or only symbols', () => {
    expect(identifierQueryOf('grants for rural health clinics')).toBeNull();
    expect(identifierQueryOf('a')).toBeNull();
    expect(identifierQueryOf('?!* 🚀')).toBeNull();
    expect(identifierQueryOf(`X${'9'.repeat(60)}`)).toBeNull();
  });

  it('looks a field up by its words only when the field takes words (title codes match the whole query only)', () => {
    const query = identifierQueryOf('NAICS 336611')!;
    expect(lookupKeysOf(query, { matchesWords: true })).toEqual(['NAICS336611', '336611']);
    expect(lookupKeysOf(query, { matchesWords: false })).toEqual(['NAICS336611']);
  });

  it('scores above any words-only match, a heavier field above a lighter one', () => {
    expect(identifierScoreOf(6)).toBeGreaterThan(IDENTIFIER_MATCH_SCORE);
    expect(identifierScoreOf(12) - identifierScoreOf(10)).toBe(2 * IDENTIFIER_FIELD_STEP);
  });
});

describe('keyword fields', () => {
  it("read a grant's program titles and a contract's NAICS industry, never its PSC group", () => {
    const record = grant({
      assistance_listings: [
        { number: '93.242', program_title: 'Mental Health Research Grants' },
        { number: '93.855', program_title: null },
      ],
    });
    expect(keywordFieldsOf('grant', record)).toEqual({
      title: record.title,
      description: record.description,
      funder: record.funder_name,
      programs: 'Mental Health Research Grants',
    });
    const notice = contract({ naics_description: 'Janitorial Services', psc_description: 'Medical, dental and veterinary equipment' });
    expect(keywordFieldsOf('contract', notice).programs).toBe('Janitorial Services');
  });
});

const SCALE: SimilarityScale = { floor: 0.67, shortFloor: 0.69, lexicalFloor: 0.5, profileFloor: 0.53, upper: 0.81 };
const evidence = (over: Partial<FloorEvidence>): FloorEvidence => ({
  bestCosine: Number.NaN,
  bestWordCosine: Number.NaN,
  identifierMatches: 0,
  words: 4,
  ...over,
});

describe('the query floor', () => {
  it('is the best cosine less the spread, when the model alone puts the query on topic', () => {
    const floor = queryFloorOf(evidence({ bestCosine: 0.8 }), SCALE);
    expect(floor.basis).toBe('similarity');
    expect(floor.semanticFloor).toBeCloseTo(0.8 - FLOOR_SPREAD, 12);
    expect(answersHybrid(floor)).toBe(true);
  });

  it('never drops under the lexical floor, however weak the best match', () => {
    expect(queryFloorOf(evidence({ bestCosine: 0.6, bestWordCosine: 0.55, words: 1 }), SCALE).semanticFloor).toBe(0.5);
  });

  it('holds a short query to its own floor: a one-word query near 0.68 is not on topic on the model alone', () => {
    expect(queryFloorOf(evidence({ bestCosine: 0.68, words: 1 }), SCALE).basis).toBe('none');
    expect(queryFloorOf(evidence({ bestCosine: 0.68, words: 3 }), SCALE).basis).toBe('similarity');
  });

  it('answers a query whose words match a record the model also puts at the lexical floor or above', () => {
    const floor = queryFloorOf(evidence({ bestCosine: 0.6, bestWordCosine: 0.52, words: 1 }), SCALE);
    expect(floor).toMatchObject({ basis: 'words', semanticFloor: 0.5 });
    expect(queryFloorOf(evidence({ bestCosine: 0.6, bestWordCosine: 0.49, words: 1 }), SCALE).basis).toBe('none');
  });

  it('gives an identifier query no semantic matches, and an off-topic one nothing at all', () => {
    const identifier = queryFloorOf(evidence({ bestCosine: 0.55, identifierMatches: 1, words: 1 }), SCALE);
    expect(identifier).toMatchObject({ basis: 'identifier', semanticFloor: null });
    expect(answersHybrid(identifier)).toBe(true);
    const offTopic = queryFloorOf(evidence({ bestCosine: 0.62 }), SCALE);
    expect(offTopic).toMatchObject({ basis: 'none', semanticFloor: null });
    expect(answersHybrid(offTopic)).toBe(false);
  });

  it('can be fixed by the caller, reading no evidence', () => {
    expect(fixedQueryFloor(0.53)).toEqual({ semanticFloor: 0.53, basis: 'fixed', evidence: null });
  });
});

describe('an empty answer', () => {
  const search = (mode: 'keyword' | 'semantic' | 'hybrid') => ({
    search: { text: 'x', mode },
    filters: { opportunityType: 'open' as const, includeNational: false },
  });

  it('says the text has nothing to search when it is stop words, punctuation or symbols, and not when it holds a code', () => {
    for (const text of ['the of and', '?!.,', '🚀🚀', '   ', '"*"']) expect(searchableText(text), text).toBe(false);
    for (const text of ['youth', 'R01', '93.242', 'PAR-25-098', 'énergie']) expect(searchableText(text), text).toBe(true);
    expect(noResultsOf({ reason: 'no_terms' }, search('keyword'))).toMatchObject({ reason: 'no_terms' });
  });

  it('counts the matches the filters excluded, and says the default hides closed and awarded records', () => {
    const answer = noResultsOf({ reason: 'filtered_out', matchesWithoutFilters: 12 }, search('hybrid'));
    expect(answer).toMatchObject({ reason: 'filtered_out', matches_without_filters: 12 });
    expect(answer.message).toBe(
      '12 records match the search text, but the filters exclude all of them. By default only opportunities open for application are listed: opportunity_type=all (or a status filter) includes closed and awarded ones.',
    );
    expect(
      noResultsOf(
        { reason: 'filtered_out', matchesWithoutFilters: 1 },
        { search: { text: 'x', mode: 'keyword' }, filters: { opportunityType: 'all', includeNational: false } },
      ).message,
    ).toBe('1 record matches the search text, but the filters exclude it.');
  });

  it('tells an off-topic query from an identifier semantic search cannot read, and a list from a search', () => {
    expect(noResultsOf({ reason: 'below_floor' }, search('semantic')).message).toMatch(/off-topic for this catalogue\.$/);
    expect(noResultsOf({ reason: 'below_floor' }, search('hybrid')).message).toMatch(/search_mode=keyword returns the records that hold its words/);
    expect(noResultsOf({ reason: 'below_floor', identifierOnly: true }, search('semantic')).message).toMatch(/search_mode=keyword or hybrid/);
    expect(noResultsOf({ reason: 'no_match' }, { filters: { opportunityType: 'open', includeNational: false } }).message).toBe(
      'No record passes these filters.',
    );
    expect(noResultsOf({ reason: 'no_match' }, search('keyword')).message).toMatch(/^No record holds the search words/);
  });
});
