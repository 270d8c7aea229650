import { describe, expect, it } from 'vitest';
import { geographyLevelOf, statesMentionedIn, US_STATE_CODES } from '../../lambdas/core/geo';
import { keywordTerms, MAX_QUERY_TERMS } from '../../lambdas/core/text';

describe('statesMentionedIn', () => {
  it('finds names and capitalised codes', () => {
    expect(statesMentionedIn('Local: Austin, TX')).toEqual(['TX']);
    expect(statesMentionedIn('Multi-state: CA, NV')).toEqual(['CA', 'NV']);
    expect(statesMentionedIn('rural New Mexico and Arizona')).toEqual(['AZ', 'NM']);
  });

  it('does not read West Virginia as Virginia, Arkansas as Kansas, or "in"/"or" as states', () => {
    expect(statesMentionedIn('West Virginia')).toEqual(['WV']);
    expect(statesMentionedIn('Arkansas')).toEqual(['AR']);
    expect(statesMentionedIn('projects in or near towns')).toEqual([]);
  });

  it('knows 56 codes', () => {
    expect(US_STATE_CODES).toHaveLength(56);
    expect(new Set(US_STATE_CODES).size).toBe(56);
  });
});

describe('geographyLevelOf', () => {
  it('derives the legacy level', () => {
    expect(geographyLevelOf([], 'National')).toBe('national');
    expect(geographyLevelOf([], 'International')).toBe('international');
    expect(geographyLevelOf(['CA'], 'California')).toBe('state');
    expect(geographyLevelOf(['TX'], 'Local: Austin, TX')).toBe('local');
    expect(geographyLevelOf(['OH'], 'Columbus, OH')).toBe('local');
    expect(geographyLevelOf(['CA', 'NV'], 'Multi-state: CA, NV')).toBe('state');
  });
});

describe('keywordTerms', () => {
  it('drops stop words and catalogue-wide words, lower-cases and de-duplicates', () => {
    expect(keywordTerms('Grants for POLICE equipment, police!')).toEqual(['police', 'equipment']);
  });

  it('folds diacritics and ignores operators', () => {
    expect(keywordTerms('café "NEAR" (AND) -x*')).toEqual(['cafe', 'near', 'x']);
  });

  it('caps the number of terms', () => {
    const many = Array.from({ length: 50 }, (_, i) => `word${i}`).join(' ');
    expect(keywordTerms(many)).toHaveLength(MAX_QUERY_TERMS);
  });
});
