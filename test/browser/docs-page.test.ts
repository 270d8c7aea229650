import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TIERS } from '../../lambdas/core/auth/tiers';
import { WEBHOOK_EVENTS, WEBHOOK_TEST_EVENT } from '../../lambdas/core/webhooks/events';
import { openApiIntroduction } from '../../lambdas/http/openapi-introduction';
import { startTestApi, type TestApi } from '../support/api-server';

/**
 * The docs page in a real browser: Debian's Chromium, headless, driven by playwright-core. The
 * page at /functions/v1/docs opens with the getting-started introduction, lists every operation
 * and webhook of the OpenAPI document, loads nothing from another host, and its try-it panel
 * (Scalar's "Test Request" client) sends GET /grants-api with a key typed into its Bearer field,
 * no parameter the reader did not tick, and shows the 200. Without /usr/bin/chromium the suite is
 * skipped with a message (`.ci/run` installs it with apt-get).
 */

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`test/browser/docs-page.test.ts skipped: ${CHROMIUM} is not installed (apt-get install -y chromium; .ci/run does it)`);

interface Operation {
  method: string;
  path: string;
  operationId: string;
  summary: string;
}

let api: TestApi;
let browser: Browser;
let page: Page;
let operations: Operation[];
let webhooks: Operation[];
/** Every URL the page asked for, from the first request on. */
const requested: string[] = [];
const pageErrors: string[] = [];
/** What the page logged as errors (a refused request, a blocked resource, a renderer failure). */
const consoleErrors: string[] = [];

describe.skipIf(!hasChromium)(`the docs page in headless Chromium (${hasChromium ? CHROMIUM : `skipped: ${CHROMIUM} is not installed`})`, () => {
  beforeAll(async () => {
    api = await startTestApi({ seed: { funders: 5, grants: 20, contracts: 5, awardedGrants: 2, awardedContracts: 1 } });
    type Operations = Record<string, Record<string, { operationId: string; summary: string }>>;
    const document = (await api.get('/openapi.json', { key: null })).body as { paths: Operations; webhooks: Operations };
    const listed = (items: Operations) =>
      Object.entries(items).flatMap(([path, methods]) =>
        Object.entries(methods).map(([method, op]) => ({ method, path, operationId: op.operationId, summary: op.summary })),
      );
    operations = listed(document.paths);
    webhooks = listed(document.webhooks);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    const context = await browser.newContext();
    context.on('request', (request) => requested.push(request.url()));
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    await page.goto(`${api.baseUrl}/docs`);
    await page.getByRole('heading', { name: 'Getting started' }).waitFor({ timeout: 60_000 });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  it('opens with the getting-started introduction', async () => {
    const headings = [...openApiIntroduction().matchAll(/^## (.+)$/gm)].map((m) => m[1]!);
    expect(headings).toEqual(expect.arrayContaining(['Getting started', 'Tiers and quotas', 'Errors and request ids', 'Paging', 'Webhooks']));
    await expect.poll(() => page.getByRole('heading', { name: 'Getting started' }).isVisible()).toBe(true);
    for (const heading of headings) expect(await page.getByRole('heading', { name: heading, exact: true }).count(), heading).toBeGreaterThan(0);
    const text = await page.locator('body').innerText();
    expect(text).toContain('npm run admin -- keys create --tier pro');
    expect(text).toContain('Authorization: Bearer <key>');
    // The tier table, as the page renders it: the basic tier's quota from the code's constant.
    const basic = page.getByRole('row').filter({ has: page.getByRole('cell', { name: 'basic', exact: true }) });
    expect(await basic.innerText()).toContain(TIERS.basic.dailyQuota!.toLocaleString('en-US'));
  });

  it('lists every operation of the OpenAPI document', async () => {
    expect(operations.length).toBeGreaterThanOrEqual(8);
    const text = await page.locator('body').innerText();
    const missing = operations
      .filter((op) => !text.includes(op.summary))
      .map((op) => `${op.operationId} (${op.method.toUpperCase()} ${op.path}): ${op.summary}`);
    expect(missing).toEqual([]);
    // Each operation has its own section (Scalar's id ends in /<METHOD><path>), not only a sidebar
    // entry; the page renders a section once it is scrolled to, as the sidebar does.
    for (const op of operations) {
      await page.getByText(op.summary, { exact: true }).first().click();
      await expect.poll(() => page.locator(`[id$="/${op.method.toUpperCase()}${op.path}"]`).count(), { message: op.operationId }).toBe(1);
    }
  });

  it('lists every webhook, with the headers of both signature schemes', async () => {
    expect(webhooks.map((op) => op.path).sort()).toEqual([...WEBHOOK_EVENTS, WEBHOOK_TEST_EVENT].sort());
    const text = await page.locator('body').innerText();
    expect(webhooks.filter((op) => !text.includes(op.summary)).map((op) => op.path)).toEqual([]);
    await page.getByText(webhooks[0]!.summary, { exact: true }).first().click();
    for (const header of ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'X-Service-Signature']) {
      await expect.poll(() => page.getByText(header, { exact: true }).first().isVisible(), { message: header }).toBe(true);
    }
  });

  it('loads the renderer and the document from this API, and nothing from another host', () => {
    const origin = new URL(api.baseUrl).origin;
    expect(requested).toContain(`${api.baseUrl}/docs`);
    expect(requested.some((url) => url.startsWith(`${api.baseUrl}/docs/scalar.js`))).toBe(true);
    expect(requested).toContain(`${api.baseUrl}/openapi.json`);
    const elsewhere = requested.filter((url) => !url.startsWith('data:') && !url.startsWith('blob:') && new URL(url).origin !== origin);
    expect(elsewhere).toEqual([]);
    expect(pageErrors).toEqual([]);
    // Nothing refused by the Content-Security-Policy, no failed load.
    expect(consoleErrors).toEqual([]);
  });

  it('sends a clean first GET /grants-api from the try-it panel: no parameter but what the reader ticks', async () => {
    await page
      .getByText(operations.find((op) => op.operationId === 'listGrants')!.summary, { exact: true })
      .first()
      .click();
    await page.getByRole('button', { name: /Test Request \(get \/grants-api\)/ }).click();
    const token = page.locator('input[placeholder="Token"][id^="scalar-client"]');
    await token.fill(api.keys.developer);
    // The examples are shown in their rows, unticked.
    const states = page.locator('tr#states');
    await expect.poll(() => states.innerText()).toContain('CA,NY');
    expect(await states.getByRole('checkbox').isChecked()).toBe(false);

    const send = async () => {
      const answer = page.waitForResponse((response) => response.url().startsWith(`${api.baseUrl}/grants-api`) && response.request().method() === 'GET');
      await page.getByRole('button', { name: /^Send get request/ }).click();
      return answer;
    };
    const response = await send();
    expect(new URL(response.url()).search).toBe('');
    expect(response.status()).toBe(200);
    expect(await response.request().headerValue('authorization')).toBe(`Bearer ${api.keys.developer}`);
    const body = (await response.json()) as { results: { id: string; status: string; opportunity_type: string }[]; pagination: { total: number } };
    // What the list returns with no parameter at all: the open records, none filtered out.
    const unfiltered = (await api.get('/grants-api')).body as typeof body;
    expect(body.results.length).toBeGreaterThan(0);
    expect(body.results.map((r) => r.id)).toEqual(unfiltered.results.map((r) => r.id));
    expect(new Set(body.results.map((r) => r.opportunity_type))).toEqual(new Set(['open']));
    expect(body.results.filter((r) => !['posted', 'forecasted'].includes(r.status))).toEqual([]);
    // The panel renders the answer: its status line and the body's pagination.
    await expect.poll(() => page.getByText('200 OK').count()).toBeGreaterThan(0);
    await expect.poll(async () => (await page.locator('body').innerText()).includes('"pagination"')).toBe(true);
    expect(new URL(response.url()).origin).toBe(new URL(api.baseUrl).origin);

    // Ticking an example's row sends it.
    await states.getByRole('checkbox').check();
    const filtered = await send();
    expect(new URL(filtered.url()).searchParams.get('states')).toBe('CA,NY');
    expect(filtered.status()).toBe(200);
  });
});
