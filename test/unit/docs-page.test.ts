import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ApiEvent } from '../../lambdas/http/api-gateway';
import {
  DOCS_ASSET_KEY,
  docsAssetIntegrityFrom,
  docsAssetIntegrityOf,
  docsAssetOriginOf,
  docsAssetRoute,
  docsPage,
  docsPageRoute,
  SCALAR_VERSION,
} from '../../lambdas/http/docs-page';
import projectPackage from '../../package.json';

const event = {} as ApiEvent;
const ASSET_ORIGIN = 'https://d111111abcdef8.cloudfront.net';
const ASSET = { origin: ASSET_ORIGIN, integrity: docsAssetIntegrityOf('window.Scalar = {};') };

function inlineScripts(html: string): string[] {
  return [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
}

function directives(policy: string): Map<string, string> {
  return new Map(policy.split('; ').map((directive) => [directive.split(' ')[0]!, directive.slice(directive.indexOf(' ') + 1)]));
}

describe('the docs page', () => {
  it('loads the pinned renderer from this API and turns off everything Scalar would fetch from elsewhere', () => {
    expect(SCALAR_VERSION).toBe(projectPackage.dependencies['@scalar/api-reference']);
    expect(SCALAR_VERSION).toMatch(/^\d+\.\d+\.\d+$/);
    const { html } = docsPage();
    expect(html).toContain(`"/docs/scalar.js?v=${SCALAR_VERSION}"`);
    expect(html).toContain("url: location.origin + base + '/openapi.json'");
    for (const option of [
      'withDefaultFonts: false',
      'telemetry: false',
      'hideClientButton: true',
      "showDeveloperTools: 'never'",
      'agent: { disabled: true }',
      'mcp: { disabled: true }',
      'persistAuth: false',
    ]) {
      expect(html, option).toContain(option);
    }
    expect(html).not.toMatch(/proxyUrl|https?:\/\//);
  });

  it('allows exactly its own inline script and this origin, nothing else', async () => {
    const { html, contentSecurityPolicy } = docsPage();
    const scripts = inlineScripts(html);
    expect(scripts).toHaveLength(1);
    const hash = createHash('sha256').update(scripts[0]!).digest('base64');
    expect(contentSecurityPolicy).toContain(`script-src 'self' 'sha256-${hash}';`);
    expect(contentSecurityPolicy).toContain("connect-src 'self'");
    expect(contentSecurityPolicy).toContain("default-src 'none'");
    const answer = await docsPageRoute()(event);
    expect(answer.statusCode).toBe(200);
    expect(answer.headers).toMatchObject({
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': contentSecurityPolicy,
      'X-Content-Type-Options': 'nosniff',
    });
    expect(answer.body).toBe(html);
  });

  it('on AWS loads the versioned bundle from the asset origin, which its policy allows for scripts and nothing else', async () => {
    const local = docsPage();
    const { html, contentSecurityPolicy } = docsPage(ASSET);
    expect(DOCS_ASSET_KEY).toBe(`scalar/${SCALAR_VERSION}/standalone.js`);
    const scripts = inlineScripts(html);
    expect(scripts).toHaveLength(1);
    expect(scripts[0]).toContain(`script.src = "${ASSET_ORIGIN}/scalar/${SCALAR_VERSION}/standalone.js";`);
    // Pinned by its hash: the browser runs only the file this release uploaded.
    expect(scripts[0]).toContain(`script.integrity = "${ASSET.integrity}";`);
    expect(scripts[0]).toContain("script.crossOrigin = 'anonymous';");
    expect(html).not.toContain('/docs/scalar.js');
    const hash = createHash('sha256').update(scripts[0]!).digest('base64');
    const aws = directives(contentSecurityPolicy);
    expect(aws.get('script-src')).toBe(`${ASSET_ORIGIN} 'sha256-${hash}'`);
    // Every other directive is the same-origin page's: the asset origin reaches nothing else.
    const same = directives(local.contentSecurityPolicy);
    expect([...aws.keys()]).toEqual([...same.keys()]);
    for (const [name, value] of aws) if (name !== 'script-src') expect(value, name).toBe(same.get(name));
    expect(contentSecurityPolicy.split(ASSET_ORIGIN)).toHaveLength(2);
    const answer = await docsPageRoute(ASSET)(event);
    expect([answer.body, answer.headers?.['Content-Security-Policy']]).toEqual([html, contentSecurityPolicy]);
  });

  it('names the bundle by its sha384, and takes only such a value from the environment', () => {
    const integrity = docsAssetIntegrityOf('window.Scalar = {};');
    expect(integrity).toBe(`sha384-${createHash('sha384').update('window.Scalar = {};').digest('base64')}`);
    expect(docsAssetIntegrityFrom(integrity, 'DOCS_ASSET_INTEGRITY')).toBe(integrity);
    for (const bad of [undefined, '', 'sha256-abc', `${integrity} 'unsafe-inline'`, integrity.slice(0, -2)]) {
      expect(() => docsAssetIntegrityFrom(bad, 'DOCS_ASSET_INTEGRITY'), String(bad)).toThrow(/DOCS_ASSET_INTEGRITY must be the bundle's sha384 integrity/);
    }
    // Same-origin (local): no integrity, no CORS mode.
    expect(docsPage().html).not.toContain('integrity');
  });

  it('takes its asset origin only as an https origin, and none when unset', () => {
    expect(docsAssetOriginOf(undefined, 'DOCS_ASSET_BASE_URL')).toBeUndefined();
    expect(docsAssetOriginOf('', 'DOCS_ASSET_BASE_URL')).toBeUndefined();
    expect(docsAssetOriginOf(ASSET_ORIGIN, 'DOCS_ASSET_BASE_URL')).toBe(ASSET_ORIGIN);
    expect(docsAssetOriginOf(`${ASSET_ORIGIN}/`, 'DOCS_ASSET_BASE_URL')).toBe(ASSET_ORIGIN);
    for (const bad of [
      'http://d111111abcdef8.cloudfront.net',
      `${ASSET_ORIGIN}/scalar`,
      'd111111abcdef8.cloudfront.net',
      "https://x.example 'unsafe-inline'",
    ]) {
      expect(() => docsAssetOriginOf(bad, 'DOCS_ASSET_BASE_URL'), bad).toThrow(/DOCS_ASSET_BASE_URL must be an https origin/);
    }
  });

  it('serves the bundle as JavaScript cached for a year, read once, without its source-map comment', async () => {
    let reads = 0;
    const route = docsAssetRoute(() => {
      reads += 1;
      return 'window.Scalar = {};\n//# sourceMappingURL=standalone.js.map';
    });
    const first = await route(event);
    const second = await route(event);
    expect(reads).toBe(1);
    expect(first.headers).toEqual({
      'Content-Type': 'text/javascript; charset=utf-8',
      'Cache-Control': 'public, max-age=31536000, immutable',
      'X-Content-Type-Options': 'nosniff',
    });
    expect(first.body).toBe('window.Scalar = {};\n');
    expect(second.body).toBe(first.body);
  });
});
