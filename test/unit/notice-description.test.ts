import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeNotice, topicsOfComposedDescription } from '../../lambdas/core/ingest/contracts/notice-description';
import { composedNoticeDescription, type NoticeFacts } from '../../lambdas/core/ingest/contracts/notice-fields';
import { pscGroupOf } from '../../lambdas/core/ingest/contracts/psc-groups';

const facts: NoticeFacts = {
  noticeType: 'Sources Sought',
  solicitationNumber: 'FA5240',
  agencies: ['DEPT OF THE AIR FORCE'],
  naics: '561990',
  classificationCode: 'R614',
  setAside: null,
  place: null,
};

describe('PSC groups', () => {
  it('name the product group of a two-digit code, the IT products of 7A-7K and the category of a service or R&D code', () => {
    expect(pscGroupOf('8915')).toBe('Subsistence (food)');
    expect(pscGroupOf('89')).toBe('Subsistence (food)');
    expect(pscGroupOf('7A21')).toBe('Information technology and telecommunications products');
    expect(pscGroupOf('R614')).toBe('Professional, administrative and management support services');
    expect(pscGroupOf('ac11')).toBe('Research and development');
    expect(pscGroupOf('DA10')).toBe('Information technology and telecommunications services');
    expect(pscGroupOf('21')).toBeNull(); // no FSC group 21
    expect(pscGroupOf('I999')).toBeNull();
    expect(pscGroupOf('')).toBeNull();
  });
});

describe('composed notice descriptions', () => {
  it('name the industry and the product or service group a notice without text buys', () => {
    expect(composedNoticeDescription(facts)).toBe(
      'Industry: All Other Support Services (NAICS 561990). Product or service: Professional, administrative and management support services (PSC R614). ' +
        'Sources Sought notice FA5240 from DEPT OF THE AIR FORCE.',
    );
    expect(composedNoticeDescription({ ...facts, classificationCode: 'I999' })).toContain('Product/service code I999.');
  });

  it("are read back for embedding: their topics, and never a notice's own text", () => {
    expect(topicsOfComposedDescription(composedNoticeDescription(facts))).toEqual({
      industry: 'All Other Support Services',
      productOrService: 'Professional, administrative and management support services',
    });
    expect(topicsOfComposedDescription('NAICS 999999. Product/service code Y1AA. Solicitation notice W912 from DEPT OF THE ARMY.')).toEqual({
      industry: null,
      productOrService: null,
    });
    expect(topicsOfComposedDescription('Product or service: Subsistence (food) (PSC 8915). Contract notice.')).toEqual({
      industry: null,
      productOrService: 'Subsistence (food)',
    });
    // A composed description naming no code says nothing about what is bought: read as text.
    expect(topicsOfComposedDescription('Contract notice.')).toBeUndefined();
    for (const text of [
      'Repair of the camera system.',
      'This notice is for lawn care. Work starts in May.',
      'Sources sought notice from the Navy. Submit capability statements by e-mail.',
      'NAICS 541511. The contractor shall provide help desk support.',
      'Industry: see attached. Submit by May 5.',
      'x'.repeat(3000),
    ]) {
      expect(topicsOfComposedDescription(text), text.slice(0, 40)).toBeUndefined();
    }
  });

  it('read back what they were composed from, for any facts', () => {
    // Names as feeds and the code tables write them: no sentence ends inside one.
    const text = fc
      .tuple(fc.stringMatching(/^[A-Za-z][A-Za-z ,&/-]{0,28}$/), fc.option(fc.stringMatching(/^[a-z]{1,8}$/), { nil: null }))
      .map(([name, aside]) => (aside ? `${name.trim()} (${aside})` : name.trim()));
    fc.assert(
      fc.property(
        fc.record({
          noticeType: fc.option(text, { nil: null }),
          solicitationNumber: fc.option(fc.stringMatching(/^[A-Z0-9-]{1,12}$/), { nil: null }),
          agencies: fc.array(text, { maxLength: 3 }),
          naics: fc.option(fc.stringMatching(/^\d{6}$/), { nil: null }),
          classificationCode: fc.option(fc.stringMatching(/^[A-Z0-9]{2,4}$/), { nil: null }),
          setAside: fc.option(text, { nil: null }),
          place: fc.option(text, { nil: null }),
        }),
        fc.option(text, { nil: null }),
        fc.option(text, { nil: null }),
        (noticeFacts, industry, productOrService) => {
          const described = describeNotice(noticeFacts, { industry, productOrService });
          const topics = topicsOfComposedDescription(described);
          if (!noticeFacts.naics && !noticeFacts.classificationCode) expect(topics).toBeUndefined();
          else
            expect(topics).toEqual({
              industry: noticeFacts.naics ? industry : null,
              productOrService: noticeFacts.classificationCode ? productOrService : null,
            });
        },
      ),
      { numRuns: 500 },
    );
  });
});
