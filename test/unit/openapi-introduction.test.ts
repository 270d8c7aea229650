import { describe, expect, it } from 'vitest';
import { TIERS, type TierName, type TierPolicy } from '../../lambdas/core/auth/tiers';
import { ERROR_CODES } from '../../lambdas/core/errors';
import { FACET_NAMES } from '../../lambdas/core/query/facets';
import { NO_RESULTS_REASONS } from '../../lambdas/core/search/no-results';
import { buildOpenApiDocument } from '../../lambdas/http/openapi';
import { openApiIntroduction } from '../../lambdas/http/openapi-introduction';

/**
 * The docs page's introduction (the document's info.description): it teaches what the code does,
 * with the code's numbers, so a change to a tier or a limit changes the page.
 */

type Responses = Record<string, { content?: Record<string, { examples?: Record<string, unknown> }> }>;

const document = buildOpenApiDocument() as { info: { description: string }; paths: Record<string, Record<string, { responses: Responses }>> };
const text = openApiIntroduction();
const section = (heading: string) => {
  const start = text.indexOf(`## ${heading}\n`);
  expect(start, heading).toBeGreaterThanOrEqual(0);
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end === -1 ? undefined : end);
};

describe('the introduction of the API reference', () => {
  it("is the document's info.description, in sections a newcomer reads in order", () => {
    expect(document.info.description).toBe(text);
    expect([...text.matchAll(/^## (.+)$/gm)].map((m) => m[1])).toEqual([
      'Getting started',
      'Tiers and quotas',
      'Errors and request ids',
      'Paging',
      'Search, relevance and the floor',
      'Facets',
      'CSV export',
      'Grant matching',
      'Webhooks',
      'The TypeScript client',
    ]);
    // Every code block is closed, so no section swallows the next.
    expect(text.match(/```/g)?.length ?? 0).toBe(4);
  });

  it('says how to get a key and send it', () => {
    const start = section('Getting started');
    expect(start).toContain('npm run admin -- keys create --tier pro --owner you@example.org');
    expect(start).toContain('.local/keys.json');
    expect(start).toContain('Authorization: Bearer <key>');
    expect(start).toContain('gcf_live_');
  });

  it('gives each tier its quota and features, from the tiers the service enforces', () => {
    const tiers = section('Tiers and quotas');
    expect(tiers).toContain('| **free** | no API access | no | no |');
    expect(tiers).toContain('| **basic** | 1,000 | no | no |');
    expect(tiers).toContain('| **pro** | 10,000 | yes | no |');
    expect(tiers).toContain('| **developer** | unlimited | yes | yes |');
    expect(tiers).toContain('basic 10 requests a second (bursts of 20), pro 50 requests a second (bursts of 100)');
    expect(section('Grant matching')).toContain('for the pro and developer tiers only');
  });

  it('follows the tiers when they change', () => {
    const changed: Record<TierName, TierPolicy> = {
      ...TIERS,
      basic: { ...TIERS.basic, dailyQuota: 2_500, matching: true },
      pro: { ...TIERS.pro, webhooks: true },
      developer: { ...TIERS.developer, webhooks: false },
    };
    const other = openApiIntroduction(changed);
    expect(other).toContain('| **basic** | 2,500 | yes | no |');
    expect(other).toContain('| **pro** | 10,000 | yes | yes |');
    expect(other).toContain('basic, pro and developer tiers only');
    expect(other).toContain('On the pro tier');
    expect(other).not.toContain('| **basic** | 1,000 |');
  });

  it('names every error code with the status the document gives it', () => {
    const statusesOf = new Map<string, Set<number>>();
    for (const item of Object.values(document.paths)) {
      for (const operation of Object.values(item)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          for (const name of Object.keys(response.content?.['application/json']?.examples ?? {})) {
            statusesOf.set(name, (statusesOf.get(name) ?? new Set()).add(Number(status)));
          }
        }
      }
    }
    const listed = new Map([...section('Errors and request ids').matchAll(/^- \*\*(\d{3})\*\* `([A-Z_]+)`/gm)].map((m) => [m[2]!, Number(m[1])]));
    expect([...listed.keys()]).toEqual([...ERROR_CODES]);
    for (const [code, status] of listed) {
      const documented = statusesOf.get(code);
      if (documented) expect([...documented], code).toContain(status);
    }
    expect(listed.get('METHOD_NOT_ALLOWED')).toBe(405);
  });

  it('explains paging, the floor, facets and CSV with the limits the code enforces', () => {
    expect(section('Paging')).toMatch(/1 to 100, default 20\) and `offset`\s+skips results \(at most 10,000\)/);
    expect(section('Paging')).toMatch(/valid for 24 hours/);
    expect(section('Paging')).toContain('`gte`');
    const search = section('Search, relevance and the floor');
    for (const mode of ['keyword', 'semantic', 'hybrid']) expect(search).toContain(`\`${mode}\``);
    expect(search).toMatch(/\*\*0\.5\*\* is the floor/);
    expect(search).toContain('0.7 × the semantic relevance +\n  0.3 × the keyword strength');
    for (const reason of NO_RESULTS_REASONS) expect(search).toContain(`- \`${reason}\`: `);
    expect(section('Facets')).toContain(`facets=${FACET_NAMES.join(',')}`);
    expect(section('CSV export')).toMatch(/up to 10,000\s+rows and 5 MB a file/);
  });

  it('tells a webhook receiver what to check', () => {
    const webhooks = section('Webhooks');
    expect(webhooks).toContain('On the developer tier');
    expect(webhooks).toContain('npm run admin -- webhooks add');
    expect(webhooks).toMatch(/`webhook-signature`.*Standard Webhooks/);
    expect(webhooks).toMatch(/more than 5 minutes off/);
    expect(webhooks).toMatch(/answer 2xx within 10 seconds/);
  });
});
