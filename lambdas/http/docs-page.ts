import { createHash } from 'node:crypto';
import { dependencies } from '../../package.json';
import { type ApiEvent, type ApiResult, apiRoute } from './api-gateway';

/**
 * GET /docs: the interactive API reference, Scalar's API reference (@scalar/api-reference, its
 * standalone browser bundle) rendering the OpenAPI document this service serves at
 * /openapi.json. Everything the page loads comes from this API: the bundle from GET
 * /docs/scalar.js (served from the installed package, never a CDN), the document from
 * /openapi.json; its try-it panel ("Test Request") sends requests to this same origin, with the
 * key typed into its Bearer field. Scalar's fonts, telemetry, request proxy, hosted client and
 * agent are turned off, and the page's Content-Security-Policy lets it reach nothing else.
 */

/** The pinned renderer version: the asset URL carries it, so the asset can be cached for a year. */
export const SCALAR_VERSION = dependencies['@scalar/api-reference'];

/** The renderer's bundle, under the version root (lib/api-routes.ts serves it). */
export const DOCS_ASSET_PATH = '/docs/scalar.js';

/**
 * The page's one inline script: finds the version root from its own address (so the page works
 * under any stage or base path, with or without a trailing slash), loads the bundle, and mounts
 * the reference with Scalar's options that would reach other hosts switched off.
 */
function mountScript(version: string): string {
  return `(() => {
  const base = location.pathname.replace(/\\/docs\\/?$/, '');
  const show = (message) => { document.getElementById('reference').textContent = message; };
  const script = document.createElement('script');
  script.src = base + ${JSON.stringify(`${DOCS_ASSET_PATH}?v=${version}`)};
  script.onerror = () => show('The API reference could not load its script from ' + script.src + '.');
  script.onload = () => Scalar.createApiReference('#reference', {
    url: location.origin + base + '/openapi.json',
    servers: [{ url: location.origin + base, description: 'This API' }],
    authentication: { preferredSecurityScheme: 'bearerAuth' },
    withDefaultFonts: false,
    telemetry: false,
    hideClientButton: true,
    showDeveloperTools: 'never',
    persistAuth: false,
    agent: { disabled: true },
    mcp: { disabled: true },
    documentDownloadType: 'json',
    defaultOpenAllTags: true,
  });
  document.head.appendChild(script);
})();`;
}

const MOUNT_SCRIPT = mountScript(SCALAR_VERSION);
const MOUNT_SCRIPT_HASH = createHash('sha256').update(MOUNT_SCRIPT).digest('base64');

/**
 * Only this origin, for everything: a renderer option that reached for a font, a proxy or a
 * telemetry endpoint elsewhere would be blocked by the browser, not only by configuration.
 * Scalar injects its styles inline, so style-src allows inline styles.
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `script-src 'self' 'sha256-${MOUNT_SCRIPT_HASH}'`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function docsPageHtml(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference - Grants, Contracts and Funders Data Service</title>
<link rel="icon" href="data:,">
</head>
<body>
<!-- Not id="api-reference": the standalone bundle would read that element as an inline document. -->
<div id="reference">Loading the API reference (it needs JavaScript)...</div>
<script>${MOUNT_SCRIPT}</script>
</body>
</html>
`;
}

/** GET /docs: the page itself (small; revalidated often so a new renderer version is picked up). */
export function docsPageRoute(): (event: ApiEvent) => Promise<ApiResult> {
  const html = docsPageHtml();
  return apiRoute(async () => ({
    statusCode: 200,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'public, max-age=300',
      'Content-Security-Policy': DOCS_CONTENT_SECURITY_POLICY,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
    },
    body: html,
  }));
}

/**
 * GET /docs/scalar.js: the renderer's standalone bundle (several megabytes of JavaScript), as text
 * from `loadBundle` (bundled into the Lambda by esbuild; read from node_modules locally). Its URL
 * names the version, so browsers may keep it for a year. Its source-map comment is dropped: the
 * map is not served.
 */
export function docsAssetRoute(loadBundle: () => string): (event: ApiEvent) => Promise<ApiResult> {
  let body: string | undefined;
  return apiRoute(async () => {
    body ??= loadBundle().replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n');
    return {
      statusCode: 200,
      headers: {
        'Content-Type': 'text/javascript; charset=utf-8',
        'Cache-Control': 'public, max-age=31536000, immutable',
        'X-Content-Type-Options': 'nosniff',
      },
      body,
    };
  });
}
