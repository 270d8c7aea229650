import { describe, expect, it } from 'vitest';
import { eligibilityWithText } from '../../lambdas/core/ingest/grants/eligibility-evidence';

const text = (over: Partial<{ title: string; description: string; eligibilityText: string | null }> = {}) => ({
  title: 'A Program',
  description: '',
  eligibilityText: null,
  ...over,
});

describe('eligibility from codes and the listing text', () => {
  it('keeps the codes, with no evidence, when the text states no restriction', () => {
    expect(eligibilityWithText(['12', '06'], text({ description: 'Research on Alaska glaciers with partners in Texas.' }))).toEqual({
      eligible_applicants: ['nonprofit', 'academic'],
      requires_501c3: true,
      states: [],
      evidence: [],
    });
  });

  it('narrows the codes to an "only" limit in the text, quoting it', () => {
    const result = eligibilityWithText(['99'], text({ description: 'This BAA is open only to colleges and universities.' }));
    expect(result.eligible_applicants).toEqual(['academic']);
    // Unrestricted (99) said no 501(c)(3) requirement; with nonprofits ruled out it says nothing.
    expect(result.requires_501c3).toBeNull();
    expect(result.evidence).toEqual([
      {
        field: 'eligible_applicants',
        effect: 'only',
        values: ['academic'],
        detail: null,
        source: 'description',
        quote: 'This BAA is open only to colleges and universities.',
      },
    ]);
  });

  it('takes an "only" limit as the text says when the codes name none of its types', () => {
    expect(eligibilityWithText(['25'], text({ eligibilityText: 'This BAA is open only to colleges and universities.' })).eligible_applicants).toEqual([
      'academic',
    ]);
  });

  it('removes an excluded type the codes listed, and keeps an exclusion with no codes as evidence only', () => {
    const listed = eligibilityWithText(['99'], text({ eligibilityText: 'For-profit entities are not eligible for this opportunity.' }));
    expect(listed.eligible_applicants).toEqual(['nonprofit', 'municipality', 'tribal', 'individual', 'academic']);
    const unlisted = eligibilityWithText([], text({ eligibilityText: 'For-profit entities are not eligible for this opportunity.' }));
    expect(unlisted.eligible_applicants).toEqual([]);
    expect(unlisted.evidence).toMatchObject([{ field: 'eligible_applicants', effect: 'excludes', values: ['for_profit'], source: 'eligibility_text' }]);
  });

  it('sets the states a restriction in the text names', () => {
    const result = eligibilityWithText([], text({ title: 'CONTAMINATED ALASKA NATIVE CLAIMS SETTLEMENT ACT LANDS ASSISTANCE PROGRAM' }));
    expect(result.states).toEqual(['AK']);
    expect(result.evidence).toMatchObject([{ field: 'states', effect: 'only', values: ['AK'], source: 'title' }]);
  });
});
