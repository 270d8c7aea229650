import { describe, expect, it } from 'vitest';
import { naicsTitleOf } from '../../lambdas/core/ingest/contracts/naics-titles';
import { composedNoticeDescription, type NoticeFacts } from '../../lambdas/core/ingest/contracts/notice-fields';

describe('NAICS industry titles', () => {
  it('names 2017 codes, the 2022 codes of sector 51, and other 2022 codes by their nearest known prefix', () => {
    expect(naicsTitleOf('541519')).toBe('Other Computer Related Services');
    expect(naicsTitleOf('561621')).toBe('Security Systems Services (except Locksmiths)');
    expect(naicsTitleOf('513210')).toBe('Software Publishers');
    expect(naicsTitleOf('811210')).toBe('Electronic and Precision Equipment Repair and Maintenance');
    expect(naicsTitleOf('999999')).toBeNull();
  });

  it('a notice without text says what industry it buys from', () => {
    const facts: NoticeFacts = {
      noticeType: 'Sources Sought',
      solicitationNumber: 'FA5240',
      agencies: ['DEPT OF THE AIR FORCE'],
      naics: '561990',
      classificationCode: 'R614',
      setAside: null,
      place: null,
    };
    expect(composedNoticeDescription(facts)).toBe(
      'Industry: All Other Support Services (NAICS 561990). Product or service: Professional, administrative and management support services (PSC R614). ' +
        'Sources Sought notice FA5240 from DEPT OF THE AIR FORCE.',
    );
  });
});
