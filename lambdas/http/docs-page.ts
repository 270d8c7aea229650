import { createHash } from 'node:crypto';
import { dependencies } from '../../package.json';
import { type ApiEvent, type ApiResult, apiRoute } from './api-gateway';

/**
 * GET /docs: the interactive API reference, Scalar's API reference (@scalar/api-reference, its
 * standalone browser bundle) rendering the OpenAPI document this service serves at
 * /openapi.json. The bundle comes from the installed package, never a public CDN: on AWS from the
 * stage's own CloudFront distribution (lib/constructs/docs-assets.ts, its base URL in
 * DOCS_ASSET_BASE_URL), locally from GET /docs/scalar.js on the same origin. The document comes
 * from /openapi.json; its try-it panel ("Test Request") sends requests to this same origin, with
 * the key typed into its Bearer field. Scalar's fonts, telemetry, request proxy, hosted client and
 * agent are turned off, and the page's Content-Security-Policy lets it reach nothing else.
 */

/** The pinned renderer version: the asset URL carries it, so the asset can be cached for a year. */
export const SCALAR_VERSION = dependencies['@scalar/api-reference'];

/** The renderer's bundle under the version root, where the local server serves it (local/api-routes.ts). */
export const DOCS_ASSET_PATH = '/docs/scalar.js';

/** Its object key on AWS (lib/constructs/docs-assets.ts): each release has its own, never overwritten. */
export const DOCS_ASSET_KEY = `scalar/${SCALAR_VERSION}/standalone.js`;

/**
 * The origin that serves the bundle on AWS (`https://<id>.cloudfront.net`), from DOCS_ASSET_BASE_URL;
 * undefined (same origin) when unset. Anything but an https origin fails the cold start: it would
 * end up in the page's Content-Security-Policy.
 */
export function docsAssetOriginOf(value: string | undefined, where: string): string | undefined {
  if (value === undefined || value === '') return undefined;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url?.protocol !== 'https:' || url.origin !== value.replace(/\/+$/, '')) {
    throw new Error(`${where} must be an https origin such as https://d111111abcdef8.cloudfront.net, not ${JSON.stringify(value)}`);
  }
  return url.origin;
}

/**
 * The bundle on another origin (AWS): where it is, and its Subresource Integrity hash, so the
 * browser runs only the exact file this release uploaded, whatever the connection to the origin.
 */
export interface DocsAsset {
  readonly origin: string;
  /** `sha384-<base64>` of the uploaded body (docsAssetIntegrityOf). */
  readonly integrity: string;
}

/** The Subresource Integrity value of the bundle's body, as the page names it. */
export function docsAssetIntegrityOf(body: string): string {
  return `sha384-${createHash('sha384').update(body).digest('base64')}`;
}

const INTEGRITY_PATTERN = /^sha384-[A-Za-z0-9+/]{64}$/;

/** DOCS_ASSET_INTEGRITY checked: a malformed hash would make every browser refuse the script. */
export function docsAssetIntegrityFrom(value: string | undefined, where: string): string {
  if (value === undefined || !INTEGRITY_PATTERN.test(value)) {
    throw new Error(`${where} must be the bundle's sha384 integrity (sha384-<base64>), not ${JSON.stringify(value)}`);
  }
  return value;
}

/** Where the page loads the bundle from (the asset origin's versioned key, or this API's own path), with its integrity there. */
function scriptSourceStatements(version: string, asset: DocsAsset | undefined): string {
  if (asset === undefined) return `script.src = base + ${JSON.stringify(`${DOCS_ASSET_PATH}?v=${version}`)};`;
  return [
    `script.src = ${JSON.stringify(`${asset.origin}/${DOCS_ASSET_KEY}`)};`,
    `  script.integrity = ${JSON.stringify(asset.integrity)};`,
    "  script.crossOrigin = 'anonymous';",
  ].join('\n');
}

/**
 * The page's one inline script: finds the version root from its own address (so the page works
 * under any stage or base path, with or without a trailing slash), loads the bundle, and mounts
 * the reference with Scalar's options that would reach other hosts switched off.
 */
function mountScript(version: string, asset: DocsAsset | undefined): string {
  return `(() => {
  const base = location.pathname.replace(/\\/docs\\/?$/, '');
  const show = (message) => { document.getElementById('reference').textContent = message; };
  const script = document.createElement('script');
  ${scriptSourceStatements(version, asset)}
  script.onerror = () => show('The API reference could not load its script from ' + script.src + ' (unreachable, or not the file this release names).');
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

export interface DocsPage {
  readonly html: string;
  readonly contentSecurityPolicy: string;
}

/**
 * The page and its Content-Security-Policy: only this origin for everything, except scripts, which
 * may come from the asset origin (and not from this one) when there is one, plus the one inline
 * script by its hash. A renderer option that reached for a font, a proxy or a telemetry endpoint
 * elsewhere would be blocked by the browser, not only by configuration. Scalar injects its styles
 * inline, so style-src allows inline styles.
 */
export function docsPage(asset?: DocsAsset): DocsPage {
  const script = mountScript(SCALAR_VERSION, asset);
  const hash = createHash('sha256').update(script).digest('base64');
  const contentSecurityPolicy = [
    "default-src 'none'",
    `script-src ${asset?.origin ?? "'self'"} 'sha256-${hash}'`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  const html = `<!doctype html>
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
<script>${script}</script>
</body>
</html>
`;
  return { html, contentSecurityPolicy };
}

/**
 * GET /docs: the page itself (small; revalidated often so a new renderer version is picked up),
 * loading the bundle from `asset` (AWS, integrity-checked) or from this API (local).
 */
export function docsPageRoute(asset?: DocsAsset): (event: ApiEvent) => Promise<ApiResult> {
  const { html, contentSecurityPolicy } = docsPage(asset);
  return apiRoute(async () => ({
    statusCode: 200,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'public, max-age=300',
      'Content-Security-Policy': contentSecurityPolicy,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
    },
    body: html,
  }));
}

/** The bundle as served: its source-map comment dropped, since the map is not served. */
export function docsAssetBody(bundle: string): string {
  return bundle.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n');
}

/** How long browsers and CloudFront keep the bundle: its URL names the version, so a year. */
export const DOCS_ASSET_CACHE_CONTROL = 'public, max-age=31536000, immutable';

/**
 * GET /docs/scalar.js on the local server: the renderer's standalone bundle (several megabytes of
 * JavaScript), as text from `loadBundle` (read from node_modules). On AWS the same body is an
 * object in the docs assets bucket instead, behind CloudFront.
 */
export function docsAssetRoute(loadBundle: () => string): (event: ApiEvent) => Promise<ApiResult> {
  let body: string | undefined;
  return apiRoute(async () => {
    body ??= docsAssetBody(loadBundle());
    return {
      statusCode: 200,
      headers: {
        'Content-Type': 'text/javascript; charset=utf-8',
        'Cache-Control': DOCS_ASSET_CACHE_CONTROL,
        'X-Content-Type-Options': 'nosniff',
      },
      body,
    };
  });
}
