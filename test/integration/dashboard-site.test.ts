import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDashboard, builtFingerprint, ensureDashboardBuilt, sourceFingerprint } from '../../dashboard/build';
import { DASHBOARD_CSP, dashboardMount } from '../../local/dashboard-site';
import { createApiServer, listen } from '../../local/http-server';
import { type LocalOpenIdProvider, localOpenIdMount, startLocalOpenIdProvider } from '../../local/oidc/local-openid-provider';
import { rawRequest } from '../support/raw-http';

/**
 * The dashboard's files at /dashboard/ on the API's server: a real build (esbuild), served with
 * its content types, CSP and cache rules, config.json from the running issuer, and nothing else.
 */

let server: Server;
let provider: LocalOpenIdProvider;
let origin: string;
let work: string;
let siteDir: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'dashboard-site-'));
  siteDir = join(work, 'site');
  await buildDashboard(siteDir);
  // Beside the site, never served: what a traversal would try to reach.
  writeFileSync(join(work, 'secret.txt'), 'not for the browser');
  let current: LocalOpenIdProvider | null = null;
  server = createApiServer(
    [],
    async () => {
      throw new Error('no API routes here');
    },
    { mounts: [localOpenIdMount(() => current), dashboardMount({ siteDir, provider: () => current })] },
  );
  origin = new URL(await listen(server, 0)).origin;
  provider = await startLocalOpenIdProvider({ origin });
  current = provider;
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  rmSync(work, { recursive: true, force: true });
});

describe('the dashboard build', () => {
  it('writes an index.html that loads one hashed script and stylesheet, nothing inline', () => {
    const html = readFileSync(join(siteDir, 'index.html'), 'utf8');
    const script = /<script type="module" src="(assets\/app-[A-Z0-9]+\.js)"><\/script>/.exec(html)?.[1];
    const style = /<link rel="stylesheet" href="(assets\/app-[A-Z0-9]+\.css)">/.exec(html)?.[1];
    expect(script).toBeDefined();
    expect(style).toBeDefined();
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
    expect(readFileSync(join(siteDir, script!), 'utf8')).toContain('InMemoryWebStorage');
  });

  it('records what it was built from, so npm start rebuilds only when that changes', async () => {
    expect(builtFingerprint(siteDir)).toBe(sourceFingerprint());
    expect(await ensureDashboardBuilt(siteDir)).toBe('up to date');
    writeFileSync(join(siteDir, 'build-info.json'), '{"fingerprint":"old"}');
    expect(await ensureDashboardBuilt(siteDir)).toBe('built');
    expect(builtFingerprint(siteDir)).toBe(sourceFingerprint());
    expect(builtFingerprint(join(work, 'nowhere'))).toBeNull();
  });
});

describe('/dashboard/ on the local server', () => {
  it('serves index.html at the folder with the strict CSP and no caching', async () => {
    const response = await fetch(`${origin}/dashboard/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toBe(DASHBOARD_CSP);
    expect(DASHBOARD_CSP).toContain("default-src 'self'");
    expect(DASHBOARD_CSP).toContain("script-src 'self'");
    expect(DASHBOARD_CSP).toContain("connect-src 'self'");
    expect(DASHBOARD_CSP).not.toContain('unsafe-inline');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(await response.text()).toBe(readFileSync(join(siteDir, 'index.html'), 'utf8'));
  });

  it('serves the hashed assets with their content types, cached for good', async () => {
    const html = readFileSync(join(siteDir, 'index.html'), 'utf8');
    const script = /src="([^"]+)"/.exec(html)![1]!;
    const style = /rel="stylesheet" href="([^"]+)"/.exec(html)![1]!;
    const js = await fetch(`${origin}/dashboard/${script}`);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await js.arrayBuffer()).byteLength).toBe(readFileSync(join(siteDir, script)).byteLength);
    const css = await fetch(`${origin}/dashboard/${style}`);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    const icon = await fetch(`${origin}/dashboard/favicon.svg`);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect(icon.headers.get('cache-control')).toBe('no-cache');
  });

  it('makes config.json from the running issuer and base URL', async () => {
    const response = await fetch(`${origin}/dashboard/config.json`);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.json()).toEqual({
      issuer: `${origin}/oidc`,
      clientId: 'gcf-dashboard',
      signInUrl: `${origin}/oidc`,
      apiBaseUrl: `${origin}/functions/v1`,
      accountApiBaseUrl: `${origin}/functions/v1/account`,
    });
  });

  it('answers 404 in the error body for a missing file', async () => {
    const response = await fetch(`${origin}/dashboard/assets/nothing.js`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(((await response.json()) as { error: { code: string; message: string } }).error.code).toBe('NOT_FOUND');
  });

  it('never reaches outside the site folder, however the path is written', async () => {
    for (const path of [
      '/dashboard/../secret.txt',
      '/dashboard/%2e%2e/secret.txt',
      '/dashboard/..%2fsecret.txt',
      '/dashboard/assets/..%2f..%2fsecret.txt',
      '/dashboard/%2e%2e%5csecret.txt',
      '/dashboard//etc/passwd',
      '/dashboard/assets/../../secret.txt',
    ]) {
      const response = await rawRequest(origin, path, []);
      expect(response.body, path).not.toContain('not for the browser');
      expect([404, 302], path).toContain(response.status);
    }
  });

  it('sends /dashboard and the loopback twin to the issuer’s /dashboard/', async () => {
    const bare = await fetch(`${origin}/dashboard`, { redirect: 'manual' });
    expect(bare.status).toBe(302);
    expect(bare.headers.get('location')).toBe(`${origin}/dashboard/`);
    const twin = origin.replace('127.0.0.1', 'localhost');
    const fromTwin = await fetch(`${twin}/dashboard/?x=1`, { redirect: 'manual' });
    expect(fromTwin.status).toBe(302);
    expect(fromTwin.headers.get('location')).toBe(`${origin}/dashboard/?x=1`);
  });

  it('refuses methods other than GET and HEAD', async () => {
    const response = await fetch(`${origin}/dashboard/index.html`, { method: 'POST', body: 'x' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
    const head = await fetch(`${origin}/dashboard/`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('says the dashboard is not built when its folder is empty', async () => {
    const empty = join(work, 'empty');
    mkdirSync(empty);
    let otherOrigin = '';
    const mount = dashboardMount({ siteDir: empty, provider: () => ({ ...provider, dashboardUrl: `${otherOrigin}/dashboard/` }) });
    const other = createApiServer([], async () => ({}) as never, { mounts: [mount] });
    otherOrigin = new URL(await listen(other, 0)).origin;
    const response = await fetch(`${otherOrigin}/dashboard/`);
    other.closeAllConnections();
    await new Promise((resolve) => other.close(resolve));
    expect(response.status).toBe(503);
    expect(((await response.json()) as { error: { code: string; message: string } }).error.message).toContain('npm run build:dashboard');
  });
});
