import { describe, expect, it } from 'vitest';
import type { ResourceKind } from '../../lambdas/core/records';
import { parseQueryString, queryStringIssues } from '../support/list-query-strings';

const TODAY = '2026-11-21';

const parse = (kind: ResourceKind, qs: string) => parseQueryString(kind, qs, TODAY);
const issuesOf = (kind: ResourceKind, qs: string) => queryStringIssues(kind, qs, TODAY);

describe('list query defaults', () => {
  it('grants: open opportunities, newest first, 20 a page', () => {
    const q = parse('grant', '');
    expect(q.sort).toEqual({ field: 'created_at', order: 'desc' });
    expect(q.limit).toBe(20);
    expect(q.offset).toBe(0);
    expect(q.countOnly).toBe(false);
    expect(q.filters?.opportunityType).toBe('open');
    expect(q.filters?.includeNational).toBe(false);
    expect(q.today).toBe(TODAY);
  });

  it('funders: alphabetical', () => {
    expect(parse('funder', '').sort).toEqual({ field: 'name', order: 'asc' });
    expect(parse('funder', 'sort_by=created_at').sort).toEqual({ field: 'created_at', order: 'desc' });
    expect(parse('funder', '').filters).toBeNull();
  });

  it('a search term without sort_by orders by relevance; an explicit sort_by wins', () => {
    expect(parse('grant', 'search=water').sort).toEqual({ field: 'relevance', order: 'desc' });
    expect(parse('grant', 'search=water&sort_by=title&order=asc').sort).toEqual({ field: 'title', order: 'asc' });
  });
});

describe('search modes', () => {
  it.each(['semantic', 'hybrid'] as const)('%s with a search term is ordered by relevance unless sort_by says otherwise', (mode) => {
    expect(parse('contract', `search=IT support&search_mode=${mode}`)).toMatchObject({
      search: { text: 'IT support', mode },
      sort: { field: 'relevance', order: 'desc' },
    });
    expect(parse('funder', `search=health&search_mode=${mode.toUpperCase()}&sort_by=name`)).toMatchObject({
      search: { mode },
      sort: { field: 'name', order: 'asc' },
    });
  });
});

describe('status semantics', () => {
  it('maps the grant status union onto stored statuses, narrowed to the live or lapsed records', () => {
    expect(parse('grant', 'status=open').filters?.status).toEqual([{ stored: 'posted', live: true }]);
    expect(parse('grant', 'status=upcoming').filters?.status).toEqual([{ stored: 'forecasted', live: true }]);
    expect(parse('grant', 'status=forecasted').filters?.status).toEqual([{ stored: 'forecasted', live: true }]);
    expect(parse('grant', 'status=posted').filters?.status).toEqual([{ stored: 'posted' }]);
    expect(parse('grant', 'status=closed').filters?.status).toEqual([
      { stored: 'closed' },
      { stored: 'posted', live: false },
      { stored: 'forecasted', live: false },
    ]);
    expect(parse('grant', 'status=OPEN,upcoming').filters?.status).toEqual([
      { stored: 'posted', live: true },
      { stored: 'forecasted', live: true },
    ]);
  });

  it("removes duplicate clauses, keeping the first occurrence's order", () => {
    expect(parse('grant', 'status=forecasted,upcoming').filters?.status).toEqual([{ stored: 'forecasted', live: true }]);
    expect(parse('grant', 'status=closed,open,closed').filters?.status).toEqual([
      { stored: 'closed' },
      { stored: 'posted', live: false },
      { stored: 'forecasted', live: false },
      { stored: 'posted', live: true },
    ]);
    // posted (any liveness) and open (live only) are different clauses.
    expect(parse('grant', 'status=posted,open').filters?.status).toEqual([{ stored: 'posted' }, { stored: 'posted', live: true }]);
  });

  it('contracts accept only open and closed', () => {
    expect(parse('contract', 'status=open').filters?.status).toEqual([{ stored: 'open', live: true }]);
    expect(parse('contract', 'status=closed').filters?.status).toEqual([{ stored: 'closed' }, { stored: 'open', live: false }]);
    expect(parse('contract', 'status=open,closed,open').filters?.status).toEqual([
      { stored: 'open', live: true },
      { stored: 'closed' },
      { stored: 'open', live: false },
    ]);
    expect(issuesOf('contract', 'status=forecasted')[0]?.field).toBe('status');
  });

  it('without a status, opportunity_type=open (the default) means what can be applied for; all and awarded filter no status', () => {
    expect(parse('grant', '').filters?.status).toEqual([
      { stored: 'posted', live: true },
      { stored: 'forecasted', live: true },
    ]);
    expect(parse('grant', 'opportunity_type=open').filters?.status).toEqual([
      { stored: 'posted', live: true },
      { stored: 'forecasted', live: true },
    ]);
    expect(parse('contract', '').filters?.status).toEqual([{ stored: 'open', live: true }]);
    expect(parse('grant', 'opportunity_type=all').filters?.status).toBeUndefined();
    expect(parse('grant', 'opportunity_type=awarded').filters?.status).toBeUndefined();
    expect(parse('contract', 'opportunity_type=all').filters?.status).toBeUndefined();
    expect(parse('contract', 'opportunity_type=awarded').filters?.status).toBeUndefined();
    // An explicit status replaces the default.
    expect(parse('grant', 'status=posted').filters?.status).toEqual([{ stored: 'posted' }]);
  });
});

describe('filters', () => {
  it('normalises states and keeps include_national', () => {
    const f = parse('grant', 'states=ca,NY,ca&include_national=true').filters!;
    expect(f.states).toEqual(['CA', 'NY']);
    expect(f.includeNational).toBe(true);
  });

  it('reads the deprecated geography best effort', () => {
    expect(parse('grant', 'geography=national').filters?.geography).toEqual({ level: 'national' });
    expect(parse('grant', 'geography=Austin, TX').filters?.geography).toEqual({ states: ['TX'] });
    expect(parse('grant', 'geography=West Virginia').filters?.geography).toEqual({ states: ['WV'] });
    expect(parse('grant', 'geography=Appalachia').filters?.geography).toEqual({ text: 'Appalachia' });
  });

  it('posted_after becomes an inclusive lower bound at the next midnight', () => {
    expect(parse('grant', 'posted_after=2026-02-28').filters?.createdFrom).toBe('2026-03-01T00:00:00.000Z');
    expect(parse('grant', 'posted_after=2024-12-31').filters?.createdFrom).toBe('2025-01-01T00:00:00.000Z');
    // No day follows the last one: the bound stays in year 9999, after every record, not in year 10000 before them all.
    expect(parse('grant', 'posted_after=9999-12-31').filters?.createdFrom).toBe('9999-12-31T23:59:59.999Z');
    expect(parse('grant', 'posted_after=9999-12-30').filters?.createdFrom).toBe('9999-12-31T00:00:00.000Z');
  });

  it('accepts contract-only filters on contracts', () => {
    const f = parse('contract', 'naics=541512,5415&set_aside=sba,8a').filters!;
    expect(f.naics).toEqual(['541512', '5415']);
    expect(f.setAside).toEqual(['SBA', '8A']);
  });

  it('keeps funder ids as given (ids are case-sensitive), on grants and contracts, each once', () => {
    const a = '13c1d59c-bcf1-5b4d-8b58-b0656c61ba94';
    const b = 'cee19b13-3563-513a-aa53-29d55c2c2e43';
    expect(parse('grant', `funder_id=${a}, ${b},${a}`).filters?.funderIds).toEqual([a, b]);
    expect(parse('contract', `funder_id=${b}`).filters?.funderIds).toEqual([b]);
    expect(issuesOf('grant', `funder_id=${a.toUpperCase()}`)).toEqual([
      { field: 'funder_id', issue: expect.stringContaining('is not one of the accepted funder ids (UUIDs in lower case') },
    ]);
  });

  it('refuses unknown parameters, contract filters on grants among them', () => {
    expect(() => parse('grant', 'naics=123456')).toThrow(
      expect.objectContaining({ status: 400, details: [{ field: 'naics', issue: expect.stringMatching(/^is not a parameter of the grant list/) }] }),
    );
  });
});

describe('bad input names the field', () => {
  const cases: [ResourceKind, string, string][] = [
    ['grant', 'limit=0', 'limit'],
    ['grant', 'limit=101', 'limit'],
    ['grant', 'limit=1.5', 'limit'],
    ['grant', 'limit=ten', 'limit'],
    ['grant', 'offset=-1', 'offset'],
    ['grant', 'sort_by=amount', 'sort_by'],
    ['funder', 'sort_by=title', 'sort_by'],
    ['grant', 'order=up', 'order'],
    ['grant', 'count_only=yes', 'count_only'],
    ['grant', 'status=pending', 'status'],
    ['grant', 'opportunity_type=past', 'opportunity_type'],
    ['grant', 'states=CA,XX', 'states'],
    ['grant', 'states=CA,,NY', 'states'],
    ['grant', 'include_national=maybe', 'include_national'],
    ['grant', 'deadline_after=2026-02-30', 'deadline_after'],
    ['grant', 'deadline_before=11/21/2026', 'deadline_before'],
    ['grant', 'posted_after=2026-13-01', 'posted_after'],
    ['grant', 'min_amount=-5', 'min_amount'],
    ['grant', 'max_amount=lots', 'max_amount'],
    ['grant', `search=${'a'.repeat(501)}`, 'search'],
    ['grant', 'search=', 'search'],
    ['grant', 'search_mode=fuzzy', 'search_mode'],
    ['grant', 'search_mode=semantic', 'search_mode'],
    ['funder', 'search_mode=hybrid', 'search_mode'],
    ['grant', 'sort_by=relevance', 'sort_by'],
    ['grant', 'limit=5&limit=6', 'limit'],
    ['grant', 'deadline_after=2026-12-01&deadline_before=2026-11-01', 'deadline_before'],
    ['contract', 'naics=54-15', 'naics'],
    ['contract', 'set_aside=NOPE', 'set_aside'],
    ['grant', 'funder_id=nih', 'funder_id'],
    ['contract', 'funder_id=13c1d59c-bcf1-5b4d-8b58-b0656c61ba9', 'funder_id'],
    ['grant', 'funder_id=13c1d59c-bcf1-5b4d-8b58-b0656c61ba94,', 'funder_id'],
    ['grant', `category=${'x'.repeat(101)}`, 'category'],
  ];
  it.each(cases)('%s ?%s → 400 on %s', (kind, qs, field) => {
    const issues = issuesOf(kind, qs);
    expect(issues.map((i) => i.field)).toContain(field);
    expect(issues.find((i) => i.field === field)?.issue).toMatch(/\w{3,}/);
  });

  it('reports every bad field at once', () => {
    const fields = issuesOf('grant', 'limit=0&order=up&states=ZZ').map((i) => i.field);
    expect(fields).toEqual(expect.arrayContaining(['limit', 'order', 'states']));
  });
});
