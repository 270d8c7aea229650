import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, relative, sep } from 'node:path';
import { BASE_PATH, type LocalMount, requestUrl } from './http-server';
import type { LocalOpenIdProvider } from './oidc/local-openid-provider';

/**
 * The dashboard's built files at /dashboard/ on the API's port, with the config.json the deploy
 * would write, made from the running server's issuer and base URL. A request names a file only by
 * matching one of the site's relative paths exactly, so no path can reach outside the folder.
 */

export const DASHBOARD_MOUNT_PATH = '/dashboard';

/** As the CloudFront response-headers policy: everything from this origin, nothing inline. */
export const DASHBOARD_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

const SECURITY_HEADERS = {
  'Content-Security-Policy': DASHBOARD_CSP,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
};

/** What /dashboard/config.json holds locally (the fields of DashboardRuntimeConfig in lib/constructs/dashboard-upload.ts). */
export function localDashboardConfig(provider: Pick<LocalOpenIdProvider, 'issuer' | 'clientId'>) {
  const origin = new URL(provider.issuer).origin;
  return {
    issuer: provider.issuer,
    clientId: provider.clientId,
    signInUrl: provider.issuer,
    apiBaseUrl: `${origin}${BASE_PATH}`,
    accountApiBaseUrl: `${origin}${BASE_PATH}/account`,
  };
}

function siteFiles(siteDir: string): Set<string> {
  if (!existsSync(siteDir)) return new Set();
  return new Set(
    readdirSync(siteDir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => relative(siteDir, join(entry.parentPath, entry.name)).split(sep).join('/')),
  );
}

function send(res: ServerResponse, status: number, headers: Record<string, string>, body: string | Buffer, head: boolean): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'Content-Length': String(Buffer.byteLength(body)), ...headers });
  res.end(head ? undefined : body);
}

function sendError(res: ServerResponse, status: number, code: string, message: string, head: boolean, headers: Record<string, string> = {}): void {
  const requestId = randomUUID();
  const body = JSON.stringify({ error: { code, message, request_id: requestId } });
  send(res, status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', 'X-Request-Id': requestId, ...headers }, body, head);
}

export function dashboardMount(options: { siteDir: string; provider: () => LocalOpenIdProvider | null }): LocalMount {
  return {
    prefix: DASHBOARD_MOUNT_PATH,
    async handle(req: IncomingMessage, res: ServerResponse) {
      req.resume();
      const head = req.method === 'HEAD';
      if (req.method !== 'GET' && !head) return sendError(res, 405, 'METHOD_NOT_ALLOWED', 'The dashboard answers GET and HEAD', false, { Allow: 'GET, HEAD' });
      const provider = options.provider();
      if (!provider) return sendError(res, 503, 'INTERNAL', 'The local sign-in is starting; try again in a moment', head);
      const url = requestUrl(req.url ?? '/');
      if (!url) return sendError(res, 404, 'NOT_FOUND', 'No such file', head);
      const home = new URL(provider.dashboardUrl);
      // One origin for the site, its issuer and the API: the twin host is sent to the issuer's.
      if (req.headers.host !== home.host || url.pathname === DASHBOARD_MOUNT_PATH) {
        const rest = url.pathname === DASHBOARD_MOUNT_PATH ? '' : url.pathname.slice(home.pathname.length);
        return send(res, 302, { Location: `${home.href}${rest}${url.search}`, 'Cache-Control': 'no-store' }, '', head);
      }
      const path = url.pathname.slice(home.pathname.length) || 'index.html';
      if (path === 'config.json') {
        const body = `${JSON.stringify(localDashboardConfig(provider), null, 2)}\n`;
        return send(res, 200, { 'Content-Type': CONTENT_TYPES['.json']!, 'Cache-Control': 'no-cache' }, body, head);
      }
      const files = siteFiles(options.siteDir);
      if (files.size === 0) return sendError(res, 503, 'INTERNAL', 'The dashboard is not built: run npm run build:dashboard', head);
      if (!files.has(path)) return sendError(res, 404, 'NOT_FOUND', 'No such file in the dashboard', head);
      const body = readFileSync(join(options.siteDir, ...path.split('/')));
      // Hashed asset names never change content: cache them for good; the rest is revalidated.
      const cache = path.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache';
      send(res, 200, { 'Content-Type': CONTENT_TYPES[extname(path)] ?? 'application/octet-stream', 'Cache-Control': cache }, body, head);
    },
  };
}
