import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdmin } from '../support/admin-cli';
import { type RunningLocalServer, startLocalServer } from '../support/local-server';

/**
 * The developer dashboard in headless Chromium against `npm start` (a child process with its own
 * state folder): the real local provider, the real account API and the real public API. A new
 * owner signs in, makes a key with the keyboard alone, copies it, calls the API with it, sees the
 * call in the request log and the usage, rotates and revokes it, reads the audit log, and signs
 * out. Skipped without /usr/bin/chromium, as the other browser tests.
 */

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);

let server: RunningLocalServer;
let dataDir: string;
let browser: Browser;
let origin: string;
let apiBase: string;
let developer: { email: string; password: string };

async function callApi(key: string): Promise<number> {
  const response = await fetch(`${apiBase}/grants-api?limit=2`, { headers: { authorization: `Bearer ${key}` } });
  await response.arrayBuffer();
  return response.status;
}

/** Tab through the page until the element with this id has the focus: how a keyboard user gets there. */
async function tabTo(page: Page, id: string): Promise<void> {
  for (let presses = 0; presses < 40; presses++) {
    if ((await page.evaluate('document.activeElement?.id')) === id) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached #${id}`);
}

const storedText = (page: Page) => page.evaluate<string>('JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage } })');

describe.skipIf(!hasChromium)('the developer dashboard in headless Chromium', () => {
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'dashboard-browser-'));
    server = await startLocalServer(['--data-dir', dataDir, '--grants', '30']);
    apiBase = server.baseUrl;
    origin = new URL(apiBase).origin;
    developer = JSON.parse(readFileSync(join(dataDir, 'oidc-provider.json'), 'utf8')).developmentAccount;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('takes a new owner from sign-in to a working key, its usage and log, rotation, revocation and sign-out', async () => {
    const context: BrowserContext = await browser.newContext();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    const page = await context.newPage();
    const problems: string[] = [];
    // Console 404s are the provider pages' /favicon.ico; any other failed response is caught below.
    page.on('console', (message) => message.type() === 'error' && !message.text().includes('status of 404') && problems.push(message.text()));
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('response', (response) => response.status() >= 400 && problems.push(`${response.status()} ${response.url()}`));

    // Sign in with the development account.
    await page.goto(`${origin}/dashboard/`);
    const started = Date.now();
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForSelector('h1:text("Sign in")');
    await page.getByLabel('E-mail').fill(developer.email);
    await page.getByLabel('Password').fill(developer.password);
    await Promise.all([page.waitForURL((url) => url.pathname === '/dashboard/' && !url.search), page.getByRole('button', { name: 'Sign in' }).click()]);
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    expect(page.url()).toBe(`${origin}/dashboard/`);
    expect(await page.getByTestId('signed-in-email').textContent()).toBe(developer.email);
    await page.getByTestId('plan').filter({ hasText: 'basic' }).waitFor();
    expect(await page.getByTestId('plan-limits').textContent()).toContain('1,000 requests a day (UTC)');
    expect(await storedText(page)).not.toMatch(/eyJ|id_token|access_token/);

    // Create a key with the keyboard alone.
    await page.getByRole('link', { name: 'Keys', exact: true }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.locator('body').focus();
    await tabTo(page, 'key-label');
    await page.keyboard.type('Browser test <b>app</b>');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Your new key “Browser test <b>app</b>”' }).waitFor();
    expect(await page.evaluate('document.activeElement?.id')).toBe('new-key-heading');
    expect(await page.locator('.new-key').textContent()).toContain('Copy it now: you will not see it again.');
    const apiKey = await page.getByLabel('Key value').inputValue();
    expect(apiKey).toMatch(/^gcf_/);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Copy');
    await page.keyboard.press('Enter');
    await page.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(apiKey);

    // The key works on the public API at once.
    expect(await callApi(apiKey)).toBe(200);
    const firstCallMs = Date.now() - started;
    expect(firstCallMs).toBeLessThan(120_000);

    // Once dismissed, the value is gone from the page.
    await page.getByRole('button', { name: 'I have saved it' }).click();
    expect(await page.content()).not.toContain(apiKey);
    const row = page.locator('tr', { hasText: 'Browser test <b>app</b>' });
    expect(await row.locator('td').nth(1).textContent()).toBe('active');

    // The call shows in the key's request log and usage.
    await page.getByRole('link', { name: 'Usage and requests of Browser test <b>app</b>' }).click();
    const log = page.getByTestId('request-log');
    await log.waitFor();
    const logRow = log.locator('tbody tr').first();
    expect(await logRow.locator('td').nth(1).textContent()).toBe('GET');
    expect(await logRow.locator('td').nth(2).textContent()).toContain('/grants-api');
    expect(await logRow.locator('td').nth(3).textContent()).toBe('200');
    expect(await page.getByTestId('total-requests').textContent()).toBe('1');
    await page.getByText('The same figures as a table').click();
    const usageRow = page.getByTestId('usage-table').locator('tbody tr');
    expect(await usageRow.count()).toBe(1);
    expect(await usageRow.first().locator('td').first().textContent()).toBe('1');
    expect(await page.locator('.chart canvas').count()).toBeGreaterThanOrEqual(3);
    // By hour: the one request sits in the current UTC hour.
    await page.getByLabel('Period').selectOption({ label: 'Today, by hour' });
    const hour = `${new Date().toISOString().slice(0, 10)} ${new Date().toISOString().slice(11, 13)}:00 UTC`;
    await page.getByTestId('usage-table').locator('tbody tr th', { hasText: hour }).waitFor();
    expect(await usageRow.count()).toBe(1);

    // Rotate: Escape closes the dialog; then rotate with the old key stopped at once.
    await page.getByRole('link', { name: 'Back to the keys' }).click();
    await page.getByRole('button', { name: 'Rotate Browser test <b>app</b>' }).click();
    const rotateDialog = page.getByRole('dialog', { name: 'Rotate “Browser test <b>app</b>”?' });
    await rotateDialog.waitFor();
    await page.keyboard.press('Escape');
    await rotateDialog.waitFor({ state: 'detached' });
    // The focus goes back to the button that opened the dialog.
    await page.waitForFunction('document.activeElement?.getAttribute("aria-label") === "Rotate Browser test <b>app</b>"', null, { timeout: 2_000 });
    await page.getByRole('button', { name: 'Rotate Browser test <b>app</b>' }).click();
    await rotateDialog.getByLabel('Stop the old key now').check();
    await rotateDialog.getByRole('button', { name: 'Rotate key' }).click();
    await page.getByRole('heading', { name: 'The new value of “Browser test <b>app</b>”' }).waitFor();
    const rotatedKey = await page.getByLabel('Key value').inputValue();
    expect(rotatedKey).not.toBe(apiKey);
    expect(await callApi(rotatedKey)).toBe(200);
    expect(await callApi(apiKey)).toBe(401);
    await page.getByRole('button', { name: 'I have saved it' }).click();

    // Revoke: the dialog keeps Tab inside and starts on Cancel; confirming revokes.
    await page.getByRole('button', { name: 'Revoke Browser test <b>app</b>' }).click();
    const revokeDialog = page.getByRole('dialog', { name: 'Revoke “Browser test <b>app</b>”?' });
    await revokeDialog.waitFor();
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Cancel');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Revoke key');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Cancel');
    await revokeDialog.getByRole('button', { name: 'Revoke key' }).click();
    await revokeDialog.waitFor({ state: 'detached' });
    await page.getByRole('status').filter({ hasText: 'Key “Browser test <b>app</b>” revoked.' }).waitFor();
    await row.locator('td', { hasText: 'revoked' }).waitFor();
    expect(await callApi(rotatedKey)).toBe(401);

    // The basic plan has no webhooks, and the view says so.
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByText('Your plan (basic) does not include webhooks.').waitFor();

    // The audit log names each change, newest first.
    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    await page.locator('tbody tr').first().waitFor();
    const actions = await page.locator('tbody tr td:nth-child(3)').allTextContents();
    expect(actions.slice(0, 3)).toEqual(['key.revoked', 'key.rotated', 'key.created']);

    // Sign out at the provider; the tokens were in memory only: a reload stays signed out.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForSelector('h1:text("Sign out?")');
    await Promise.all([page.waitForURL(`${origin}/dashboard/`), page.keyboard.press('Enter')]);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await page.reload();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await storedText(page)).not.toMatch(/eyJ|id_token/);
    expect(problems).toEqual([]);
    await context.close();
  }, 180_000);

  it('tells a free-plan owner that its keys cannot call the API, and lists a developer plan’s webhooks', async () => {
    // The operator moves the account to free through the running server's admin channel.
    const moved = await runAdmin(['accounts', 'set-plan', developer.email, 'free', '--data-dir', dataDir]);
    expect(moved.code, moved.stderr).toBe(0);
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${origin}/dashboard/`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('E-mail').fill(developer.email);
    await page.getByLabel('Password').fill(developer.password);
    await Promise.all([page.waitForURL((url) => url.pathname === '/dashboard/' && !url.search), page.getByRole('button', { name: 'Sign in' }).click()]);
    await page.getByTestId('plan').filter({ hasText: 'free' }).waitFor();
    expect(await page.getByTestId('plan-limits').locator('li').first().textContent()).toBe('No API access: keys of this plan are refused by the API.');

    await page.getByRole('link', { name: 'Keys', exact: true }).click();
    await page.getByText('The free plan has no API access').waitFor();
    await page.getByLabel('Label').fill('free key');
    await page.getByRole('button', { name: 'Create key' }).click();
    const freeKey = await page.getByLabel('Key value').inputValue();
    expect(await callApi(freeKey)).toBe(403);

    // On the developer plan, the webhooks of the account's keys are listed (made here by an operator).
    await page.getByRole('button', { name: 'I have saved it' }).click();
    const keyId = await page.locator('tr', { hasText: 'free key' }).getAttribute('data-key-id');
    expect((await runAdmin(['accounts', 'set-plan', developer.email, 'developer', '--data-dir', dataDir])).code).toBe(0);
    const added = await runAdmin([
      'webhooks',
      'add',
      '--key-id',
      keyId!,
      '--url',
      'http://127.0.0.1:9/hook',
      '--events',
      'grant.created',
      '--filter',
      'search=water',
      '--data-dir',
      dataDir,
    ]);
    expect(added.code, added.stderr).toBe(0);
    await page.getByRole('link', { name: 'Webhooks' }).click();
    const webhook = page.getByTestId('webhooks').locator('tbody tr');
    await webhook.waitFor();
    expect(await webhook.locator('th').textContent()).toBe('http://127.0.0.1:9/hook');
    expect(await webhook.locator('td').allTextContents()).toEqual([
      'free key',
      'grant.created',
      'search=water',
      'active',
      expect.stringMatching(/UTC$/),
      'Turn off',
    ]);
    // Off and on again from the dashboard.
    await page.getByRole('button', { name: 'Turn off the webhook to http://127.0.0.1:9/hook' }).click();
    await webhook.locator('td', { hasText: /^disabled/ }).waitFor();
    await page.getByRole('button', { name: 'Turn on the webhook to http://127.0.0.1:9/hook' }).click();
    await webhook.locator('td', { hasText: /^active$/ }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Webhook to http://127.0.0.1:9/hook turned on.' }).waitFor();
    await context.close();
  }, 120_000);
});
