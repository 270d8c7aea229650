import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unauthorized } from '../../lambdas/core/auth/api-keys';
import { DOCS_ASSET_CACHE_CONTROL, DOCS_ASSET_KEY, DOCS_ASSET_PATH, docsAssetBody, docsAssetIntegrityOf, docsPageRoute } from '../../lambdas/http/docs-page';
import { openApiRoute } from '../../lambdas/http/openapi';
import { readScalarStandalone } from '../../lib/scalar-bundle';
import { createApiServer, listen } from '../../local/http-server';

/**
 * The docs page as AWS serves it: the page from the API, its script from another origin (CloudFront
 * there; here a plain server on another port answering with the distribution's response headers).
 * In headless Chromium the page's Content-Security-Policy must let that script run and refuse
 * nothing, and the page must render. Skipped without /usr/bin/chromium, as test/browser/docs-page.test.ts.
 */

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);

let assetServer: Server;
let pageServer: Server;
let assetOrigin: string;
let pageBaseUrl: string;
let browser: Browser;
const requested: string[] = [];
const consoleErrors: string[] = [];
const pageErrors: string[] = [];
/** When set, the asset origin answers a changed file, as a tampered copy or a downgraded connection would. */
let tampered = false;

describe.skipIf(!hasChromium)('the docs page with its script on another origin, in headless Chromium', () => {
  beforeAll(async () => {
    const body = docsAssetBody(readScalarStandalone());
    let pageOrigin = '';
    // As the distribution answers (lib/constructs/docs-assets.ts): the object, CORS for the page, nosniff, a year's cache.
    assetServer = createServer((request, response) => {
      if (request.method !== 'GET' || request.url !== `/${DOCS_ASSET_KEY}`) {
        response.writeHead(403).end();
        return;
      }
      response.writeHead(200, {
        'Content-Type': 'text/javascript; charset=utf-8',
        'Cache-Control': DOCS_ASSET_CACHE_CONTROL,
        'X-Content-Type-Options': 'nosniff',
        'Access-Control-Allow-Origin': pageOrigin,
      });
      response.end(tampered ? `${body}\nwindow.injected = true;` : body);
    });
    await new Promise<void>((resolve) => assetServer.listen(0, '127.0.0.1', resolve));
    assetOrigin = `http://127.0.0.1:${(assetServer.address() as AddressInfo).port}`;

    // The API's public routes only: the page names the asset origin as DOCS_ASSET_BASE_URL makes the Lambda do.
    pageServer = createApiServer(
      [
        { method: 'GET', resource: '/openapi.json', authenticated: false, handler: openApiRoute() },
        { method: 'GET', resource: '/docs', authenticated: false, handler: docsPageRoute({ origin: assetOrigin, integrity: docsAssetIntegrityOf(body) }) },
      ],
      // Never called: both routes are public.
      async () => {
        throw unauthorized('no protected routes here');
      },
    );
    pageBaseUrl = await listen(pageServer, 0, 'localhost');
    pageOrigin = new URL(pageBaseUrl).origin;

    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
    const context = await browser.newContext();
    context.on('request', (request) => requested.push(request.url()));
    const page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    await page.goto(`${pageBaseUrl}/docs`);
    await page.getByRole('heading', { name: 'Getting started' }).waitFor({ timeout: 60_000 });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    pageServer?.closeAllConnections();
    await new Promise((resolve) => pageServer?.close(resolve));
    assetServer?.closeAllConnections();
    await new Promise((resolve) => assetServer?.close(resolve));
  });

  it('renders from the script of the asset origin, with nothing refused by its Content-Security-Policy', () => {
    expect(requested).toContain(`${assetOrigin}/${DOCS_ASSET_KEY}`);
    expect(requested.filter((url) => url.includes(DOCS_ASSET_PATH))).toEqual([]);
    expect(requested).toContain(`${pageBaseUrl}/openapi.json`);
    const origins = new Set(requested.filter((url) => !url.startsWith('data:') && !url.startsWith('blob:')).map((url) => new URL(url).origin));
    expect([...origins].sort()).toEqual([assetOrigin, new URL(pageBaseUrl).origin].sort());
    expect(pageErrors).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });

  it('refuses a script that is not the file this release uploaded (Subresource Integrity), and says so', async () => {
    tampered = true;
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const refusals: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') refusals.push(message.text());
      });
      await page.goto(`${pageBaseUrl}/docs`);
      await page.getByText('could not load its script').waitFor({ timeout: 30_000 });
      expect(await page.evaluate('typeof window.injected')).toBe('undefined');
      expect(refusals.some((text) => /integrity/i.test(text))).toBe(true);
    } finally {
      tampered = false;
      await context.close();
    }
  }, 60_000);
});
