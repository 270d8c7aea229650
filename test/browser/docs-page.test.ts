import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api-server';

/**
 * The docs page in a real browser: Debian's Chromium, headless, driven by playwright-core. The
 * page at /functions/v1/docs lists every operation of the OpenAPI document, loads nothing from
 * another host, and its try-it panel (Scalar's "Test Request" client) sends GET /grants-api with a
 * key typed into its Bearer field and shows the 200. Without /usr/bin/chromium the suite is
 * skipped with a message (`.ci/run` installs it with apt-get).
 */

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
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
/** Every URL the page asked for, from the first request on. */
const requested: string[] = [];
const pageErrors: string[] = [];
/** What the page logged as errors (a refused request, a blocked resource, a renderer failure). */
const consoleErrors: string[] = [];

describe.skipIf(!hasChromium)(`the docs page in headless Chromium (${hasChromium ? CHROMIUM : `skipped: ${CHROMIUM} is not installed`})`, () => {
  beforeAll(async () => {
    api = await startTestApi({ seed: { funders: 5, grants: 20, contracts: 5, awardedGrants: 2, awardedContracts: 1 } });
    const document = (await api.get('/openapi.json', { key: null })).body as { paths: Record<string, Record<string, { operationId: string; summary: string }>> };
    operations = Object.entries(document.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ method, path, operationId: op.operationId, summary: op.summary })));
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    const context = await browser.newContext();
    context.on('request', (request) => requested.push(request.url()));
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => { if (message.type() === 'error') consoleErrors.push(message.text()); });
    await page.goto(`${api.baseUrl}/docs`);
    await page.getByRole('button', { name: /Test Request/ }).first().waitFor({ timeout: 60_000 });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  it('lists every operation of the OpenAPI document', async () => {
    expect(operations.length).toBeGreaterThanOrEqual(8);
    const text = await page.locator('body').innerText();
    const missing = operations.filter((op) => !text.includes(op.summary)).map((op) => `${op.operationId} (${op.method.toUpperCase()} ${op.path}): ${op.summary}`);
    expect(missing).toEqual([]);
    // Each operation has its own section (Scalar's id ends in /<METHOD><path>), not only a sidebar entry.
    for (const op of operations) {
      expect(await page.locator(`[id$="/${op.method.toUpperCase()}${op.path}"]`).count(), op.operationId).toBe(1);
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

  it('sends GET /grants-api from the try-it panel with a key and shows the 200', async () => {
    await page.getByRole('button', { name: /Test Request \(get \/grants-api\)/ }).click();
    const token = page.locator('input[placeholder="Token"][id^="scalar-client"]');
    await token.fill(api.keys.developer);
    const answer = page.waitForResponse((response) => response.url().startsWith(`${api.baseUrl}/grants-api`) && response.request().method() === 'GET');
    await page.getByRole('button', { name: /^Send get request/ }).click();
    const response = await answer;
    expect(response.status()).toBe(200);
    expect(await response.request().headerValue('authorization')).toBe(`Bearer ${api.keys.developer}`);
    const body = (await response.json()) as { results: unknown[]; pagination: { total: number } };
    expect(Array.isArray(body.results)).toBe(true);
    // The panel renders the answer: its status line and the body's pagination.
    await expect.poll(() => page.getByText('200 OK').count()).toBeGreaterThan(0);
    await expect.poll(async () => (await page.locator('body').innerText()).includes('"pagination"')).toBe(true);
    expect(new URL(response.url()).origin).toBe(new URL(api.baseUrl).origin);
  });
});
