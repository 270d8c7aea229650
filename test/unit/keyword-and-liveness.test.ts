import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays } from '../../lambdas/core/dates';
import { isLive, isOpenEnded, type LivenessFields, liveUntil, staleBefore } from '../../lambdas/core/query/applyable';
import {
  COMMON_TERM_FRACTION,
  keywordQueryOf,
  keywordTermsOf,
  MINIMUM_SHOULD_MATCH,
  PHRASE_BOOST,
  PHRASE_SLOP,
  requiredTermCount,
} from '../../lambdas/core/search/keyword-query';
import { STOP_WORDS } from '../../lambdas/core/text';

/**
 * The keyword query both indexes run (BM25, OR, minimum-should-match) and the liveness rule of
 * "what can be applied for" (deadline, archive date, stale open-ended listings).
 */

describe('the keyword query', () => {
  it('requires every term of one or two, all but a third (rounded down) of three or four, half (rounded up) of five or more', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9].map(requiredTermCount)).toEqual([1, 2, 2, 3, 3, 3, 4, 4, 5]);
  });

  it('is Lucene\'s "2<-34% 4<-50%", with a near-phrase boost of 2 within 2 words', () => {
    expect(MINIMUM_SHOULD_MATCH).toBe('2<-34% 4<-50%');
    expect(PHRASE_BOOST).toBe(2);
    expect(PHRASE_SLOP).toBe(2);
  });

  it('counts words with the same Porter stem once, keeping the first in query order', () => {
    expect(keywordTermsOf('program programs')).toEqual(['program']);
    expect(keywordTermsOf('Rural housing HOUSES broadband')).toEqual(['rural', 'housing', 'broadband']);
  });

  it('drops stop words, Lucene\'s English ones included (not, they, ...), catalogue-wide words and a possessive\'s "s"', () => {
    expect(keywordTermsOf('They are not eligible for such rural broadband grants, but these programs then are')).toEqual([
      'eligible',
      'rural',
      'broadband',
      'programs',
    ]);
    expect(keywordTermsOf("women's health and children\u2019s dental care")).toEqual(['women', 'health', 'children', 'dental', 'care']);
    for (const word of ['but', 'if', 'no', 'not', 'such', 'then', 'there', 'these', 'they']) expect(STOP_WORDS.has(word), word).toBe(true);
  });

  it("keeps every word OpenSearch's english analyzer keeps: its whole stop set is ours", () => {
    const lucene = [
      'a',
      'an',
      'and',
      'are',
      'as',
      'at',
      'be',
      'but',
      'by',
      'for',
      'if',
      'in',
      'into',
      'is',
      'it',
      'no',
      'not',
      'of',
      'on',
      'or',
      'such',
      'that',
      'the',
      'their',
      'then',
      'there',
      'these',
      'they',
      'this',
      'to',
      'was',
      'will',
      'with',
    ];
    expect(lucene.filter((word) => !STOP_WORDS.has(word))).toEqual([]);
  });

  it('needs one telling term (in at most 5% of records) when a query has both kinds; common ones count toward the minimum', () => {
    expect(COMMON_TERM_FRACTION).toBe(0.05);
    const frequency = new Map([
      ['programs', 600],
      ['help', 150],
      ['people', 90],
      ['quit', 3],
      ['smoking', 50],
    ]);
    expect(keywordQueryOf(['programs', 'help', 'people', 'quit', 'smoking'], frequency, 1000)).toEqual({
      terms: ['programs', 'help', 'people', 'quit', 'smoking'],
      counted: ['programs', 'help', 'people', 'quit', 'smoking'],
      required: 3,
      telling: ['quit', 'smoking'],
      // A record holding "quit" or "smoking" but fewer than 3 of the words may still be a partial match.
      partial: ['quit', 'smoking'],
    });
    // A word in no record (a typo, nonsense) cannot match, so it is not counted.
    expect(
      keywordQueryOf(
        ['mental', 'helth', 'services'],
        new Map([
          ['mental', 50],
          ['services', 700],
        ]),
        1000,
      ),
    ).toEqual({
      terms: ['mental', 'helth', 'services'],
      counted: ['mental', 'services'],
      required: 2,
      telling: ['mental'],
      partial: ['mental'],
    });
    expect(keywordQueryOf(['qwxz', 'zzkv'], new Map(), 1000)).toBeNull();
    // Without statistics (a unit test of the DSL, say) every term counts and none is singled out.
    expect(keywordQueryOf(['a1', 'b2', 'c3'])).toEqual({ terms: ['a1', 'b2', 'c3'], counted: ['a1', 'b2', 'c3'], required: 2, telling: [], partial: [] });
  });

  it('asks nothing more when every term is common, or every term is telling', () => {
    const common = new Map([
      ['community', 400],
      ['health', 300],
      ['services', 700],
    ]);
    expect(keywordQueryOf(['community', 'health', 'services'], common, 1000)).toMatchObject({ required: 2, telling: [], partial: [] });
    const rare = new Map([
      ['quit', 3],
      ['smoking', 8],
    ]);
    // Every term telling: either one admits a partial match.
    expect(keywordQueryOf(['quit', 'smoking'], rare, 1000)).toMatchObject({ required: 2, telling: [], partial: ['quit', 'smoking'] });
    // One term: a record holding it is a full match, so there is no partial tier.
    expect(keywordQueryOf(['smoking'], rare, 1000)).toMatchObject({ required: 1, partial: [] });
    expect(keywordQueryOf(['money', 'restore', 'old', 'historic', 'buildings'])).toMatchObject({ required: 3 });
  });

  it('is null when nothing but stop words or punctuation is left (no result, no request)', () => {
    for (const text of ['the of and', 'not if they', '!!! ???', '']) {
      expect(keywordTermsOf(text)).toEqual([]);
      expect(keywordQueryOf(keywordTermsOf(text))).toBeNull();
    }
  });
});

describe('liveness (what can be applied for)', () => {
  const TODAY = '2026-11-25';
  const posted = (fields: Partial<LivenessFields>): LivenessFields => ({
    deadline_date: null,
    archive_date: null,
    created_at: '2025-06-01T00:00:00Z',
    ...fields,
  });

  it('stale listings are those created more than round(3 * 365.25) = 1096 days before today', () => {
    expect(staleBefore(TODAY)).toBe('2023-11-25');
    expect(staleBefore('2026-11-22')).toBe('2023-11-22');
    expect(staleBefore('2024-03-01')).toBe('2021-03-01');
  });

  it('open-ended: no deadline, or one more than 10 years (3653 days) after posting', () => {
    expect(isOpenEnded({ deadline_date: null, created_at: '2025-01-01T00:00:00Z' })).toBe(true);
    expect(isOpenEnded({ deadline_date: '2102-04-13', created_at: '2012-05-01T00:00:00Z' })).toBe(true);
    expect(isOpenEnded({ deadline_date: '2030-01-15', created_at: '2020-03-10T00:00:00Z' })).toBe(false);
    // 2020-01-01 plus 3653 days is 2030-01-01: a deadline on it is real, the day after a placeholder.
    expect(isOpenEnded({ deadline_date: '2030-01-01', created_at: '2020-01-01T15:30:00Z' })).toBe(false);
    expect(isOpenEnded({ deadline_date: '2030-01-02', created_at: '2020-01-01T15:30:00Z' })).toBe(true);
  });

  it('a posting without a deadline is live for three years, then stale', () => {
    expect(isLive(posted({ created_at: '2014-03-01T00:00:00Z' }), TODAY)).toBe(false);
    expect(isLive(posted({ created_at: '2025-03-01T00:00:00Z' }), TODAY)).toBe(true);
    // The boundary: created on staleBefore(today) is still live, the instant before it is not.
    expect(isLive(posted({ created_at: '2023-11-25T00:00:00Z' }), TODAY)).toBe(true);
    expect(isLive(posted({ created_at: '2023-11-24T23:59:59Z' }), TODAY)).toBe(false);
  });

  it('a placeholder deadline (2102 on a 2012 posting) is open-ended, hence stale; a real one (2030 on a 2020 posting) keeps an old posting live', () => {
    expect(isLive(posted({ deadline_date: '2102-04-13', created_at: '2012-05-01T00:00:00Z' }), TODAY)).toBe(false);
    expect(isLive(posted({ deadline_date: '2030-01-15', created_at: '2020-03-10T00:00:00Z' }), TODAY)).toBe(true);
  });

  it('a past archive date or a past deadline ends it; on the day itself it is still live', () => {
    expect(isLive(posted({ archive_date: '2026-11-24' }), TODAY)).toBe(false);
    expect(isLive(posted({ archive_date: TODAY }), TODAY)).toBe(true);
    expect(isLive(posted({ deadline_date: '2026-11-24' }), TODAY)).toBe(false);
    expect(isLive(posted({ deadline_date: TODAY }), TODAY)).toBe(true);
    expect(isLive(posted({ deadline_date: '2027-02-01', archive_date: '2026-10-01' }), TODAY)).toBe(false);
    expect(isLive(posted({ deadline_date: '2027-02-01', archive_date: '2027-03-01' }), TODAY)).toBe(true);
  });

  it('liveUntil is the last live day: the earliest of deadline, archive date and the stale horizon; null when nothing ends it', () => {
    expect(liveUntil(posted({ created_at: '2025-03-01T10:00:00Z' }))).toBe('2028-03-01');
    expect(liveUntil(posted({ deadline_date: '2027-02-01', archive_date: '2026-12-01' }))).toBe('2026-12-01');
    expect(liveUntil(posted({ deadline_date: '2102-04-13', created_at: '2012-05-01T00:00:00Z' }))).toBe('2015-05-02');
    expect(liveUntil({ deadline_date: '2030-01-15', archive_date: null, created_at: '2020-03-10T00:00:00Z' })).toBe('2030-01-15');
  });

  it('"live until today or later" is exactly the rule as stated (deadline, archive date, stale open-ended listing), on any record and day', () => {
    const day = fc.integer({ min: 0, max: 365 * 40 }).map((n) => addDays('2000-01-01', n));
    const record = fc.record({
      deadline_date: fc.option(day, { nil: null }),
      archive_date: fc.option(day, { nil: null }),
      created_at: fc.tuple(day, fc.constantFrom('T00:00:00Z', 'T12:30:00Z', 'T23:59:59Z')).map(([d, t]) => d + t),
    });
    fc.assert(
      fc.property(record, day, (r, today) => {
        const asStated =
          (r.deadline_date === null || r.deadline_date >= today) &&
          (r.archive_date === null || r.archive_date >= today) &&
          !(isOpenEnded(r) && r.created_at < staleBefore(today));
        const last = liveUntil(r);
        expect(last === null || last >= today).toBe(asStated);
        expect(isLive(r, today)).toBe(asStated);
      }),
      { numRuns: 5000 },
    );
  });
});
