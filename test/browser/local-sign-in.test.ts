import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JoseIdentityVerifier } from '../../lambdas/adapters/oidc/jose-identity-verifier';
import { createApiServer, listen } from '../../local/http-server';
import { type LocalOpenIdProvider, localOpenIdMount, startLocalOpenIdProvider } from '../../local/oidc/local-openid-provider';
import { authorizationUrl, type CodeFlowClient, exchangeCode, pkcePair } from '../support/oidc-code-flow';

/**
 * The local sign-in page in headless Chromium, used with the keyboard only: the focus starts on
 * the e-mail field, Tab and Enter sign in, a wrong password is announced, sign-out is one key
 * press. Skipped without /usr/bin/chromium, as the other browser tests.
 */

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);

let server: Server;
let provider: LocalOpenIdProvider;
let client: CodeFlowClient;
let browser: Browser;

describe.skipIf(!hasChromium)('the local sign-in in headless Chromium', () => {
  beforeAll(async () => {
    let current: LocalOpenIdProvider | null = null;
    server = createApiServer(
      [],
      async () => {
        throw new Error('no API routes here');
      },
      { mounts: [localOpenIdMount(() => current)] },
    );
    provider = await startLocalOpenIdProvider({ origin: new URL(await listen(server, 0)).origin });
    current = provider;
    client = { issuer: provider.issuer, clientId: provider.clientId, redirectUri: provider.dashboardUrl };
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
  });
  afterAll(async () => {
    await browser?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  async function openSignIn(page: Page, challenge: string): Promise<void> {
    await page.goto(authorizationUrl(client, { state: 'browser', challenge }));
    await page.waitForSelector('h1:text("Sign in")');
  }

  it('signs in with the keyboard alone and comes back to the dashboard with a code the token endpoint takes', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems: string[] = [];
    // Not the 404s of /favicon.ico and of /dashboard/, which this server does not serve.
    page.on('console', (message) => message.type() === 'error' && !message.text().includes('status of 404') && problems.push(message.text()));
    page.on('pageerror', (error) => problems.push(error.message));
    const { verifier, challenge } = pkcePair();
    await openSignIn(page, challenge);
    expect(await page.evaluate('document.activeElement?.id')).toBe('email');
    await expect(page.getByLabel('E-mail').getAttribute('type')).resolves.toBe('email');

    await page.keyboard.type(provider.developmentAccount.email);
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.id')).toBe('password');
    await page.keyboard.type(provider.developmentAccount.password);
    await Promise.all([page.waitForURL((url) => url.href.startsWith(provider.dashboardUrl)), page.keyboard.press('Enter')]);
    const back = new URL(page.url());
    expect(back.searchParams.get('state')).toBe('browser');
    const tokens = await exchangeCode(client, back.searchParams.get('code')!, verifier);
    const identity = await new JoseIdentityVerifier({ issuer: provider.issuer, clientId: provider.clientId }).verify([`Bearer ${tokens.body.id_token}`]);
    expect(identity.email).toBe(provider.developmentAccount.email);
    expect(problems).toEqual([]);

    // Sign-out: the confirmation's focused button, then back to the dashboard.
    await page.goto(`${provider.issuer}/session/end?client_id=${client.clientId}&post_logout_redirect_uri=${encodeURIComponent(provider.dashboardUrl)}`);
    await page.waitForSelector('h1:text("Sign out?")');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Sign out');
    await Promise.all([page.waitForURL(provider.dashboardUrl), page.keyboard.press('Enter')]);
    await openSignIn(page, pkcePair().challenge);
    await context.close();
  });

  it('announces a wrong password in an alert tied to the fields, and keeps the e-mail typed', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await openSignIn(page, pkcePair().challenge);
    await page.getByLabel('E-mail').fill(provider.developmentAccount.email);
    await page.getByLabel('Password').fill('wrong-password');
    await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Sign in' }).click()]);
    await page.waitForSelector('[role="alert"]');
    expect(await page.getByRole('alert').textContent()).toBe('Wrong e-mail or password.');
    expect(await page.getByLabel('E-mail').inputValue()).toBe(provider.developmentAccount.email);
    expect(await page.getByLabel('Password').getAttribute('aria-describedby')).toBe('sign-in-error');
    expect(page.url()).not.toContain('code=');
    await context.close();
  });
});
