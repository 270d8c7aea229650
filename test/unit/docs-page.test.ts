import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ApiEvent } from '../../lambdas/http/api-gateway';
import { DOCS_CONTENT_SECURITY_POLICY, docsAssetRoute, docsPageHtml, docsPageRoute, SCALAR_VERSION } from '../../lambdas/http/docs-page';
import projectPackage from '../../package.json';

const event = {} as ApiEvent;

describe('the docs page', () => {
  it('loads the pinned renderer from this API and turns off everything Scalar would fetch from elsewhere', () => {
    expect(SCALAR_VERSION).toBe(projectPackage.dependencies['@scalar/api-reference']);
    expect(SCALAR_VERSION).toMatch(/^\d+\.\d+\.\d+$/);
    const html = docsPageHtml();
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
    const html = docsPageHtml();
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    expect(scripts).toHaveLength(1);
    const hash = createHash('sha256').update(scripts[0]!).digest('base64');
    expect(DOCS_CONTENT_SECURITY_POLICY).toContain(`script-src 'self' 'sha256-${hash}'`);
    expect(DOCS_CONTENT_SECURITY_POLICY).toContain("connect-src 'self'");
    expect(DOCS_CONTENT_SECURITY_POLICY).toContain("default-src 'none'");
    const answer = await docsPageRoute()(event);
    expect(answer.statusCode).toBe(200);
    expect(answer.headers).toMatchObject({
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': DOCS_CONTENT_SECURITY_POLICY,
      'X-Content-Type-Options': 'nosniff',
    });
    expect(answer.body).toBe(html);
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
