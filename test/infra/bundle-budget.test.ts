import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTHORIZER_ENTRY, BUNDLE_BUDGET_BYTES, type Bundle, bundleBudgetOf, bundleEntry, lambdaEntries, OWN_BUNDLE_BUDGETS_BYTES } from '../../bench/bundles';
import { ACCOUNT_ROUTES, API_ROUTES } from '../../lib/api-routes';
import { ServiceFunction } from '../../lib/constructs/service-function';
import { PROJECT_ROOT } from '../../lib/project-root';

/**
 * Issue 8's bundle budget: each API function's minified bundle (every route's and the
 * authorizer's) stays at or under 400 KB, bundled with ServiceFunction's own options. The sizes of
 * all bundles are listed in docs/benchmarks.md by `npm run bench -- --parts coldstart`.
 */

const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`;
let bundles: Map<string, Bundle>;

beforeAll(async () => {
  bundles = new Map();
  for (const { entry } of lambdaEntries()) bundles.set(entry, await bundleEntry(entry));
}, 180_000);

describe('Lambda bundle budget', () => {
  it('covers every route, the authorizer and the background functions', () => {
    const api = lambdaEntries()
      .filter((e) => e.api)
      .map((e) => e.entry)
      .sort();
    expect(api).toEqual([...new Set([...API_ROUTES, ...ACCOUNT_ROUTES].map((route) => route.entry)), AUTHORIZER_ENTRY].sort());
    expect(
      lambdaEntries()
        .filter((e) => !e.api)
        .map((e) => e.name),
    ).toEqual(expect.arrayContaining(['index-record-changes', 'send-webhooks', 'bootstrap-search-index']));
  });

  it(`keeps each API function at or under ${kb(BUNDLE_BUDGET_BYTES)}, or the budget of its own`, () => {
    const lines = lambdaEntries().map(({ entry, api }) => {
      const bundle = bundles.get(entry)!;
      const top = bundle.contributions
        .slice(0, 4)
        .map(([owner, bytes]) => `${owner} ${kb(bytes)}`)
        .join(', ');
      return `${api ? 'API ' : '    '} ${entry.padEnd(44)} ${kb(bundle.bytes).padStart(9)}  (${top})`;
    });
    console.log(`Lambda bundles (minified index.mjs; budget ${kb(BUNDLE_BUDGET_BYTES)} for API functions):\n${lines.join('\n')}`);
    const over = lambdaEntries()
      .filter(({ entry, api }) => api && bundles.get(entry)!.bytes > bundleBudgetOf(entry))
      .map(
        ({ entry }) =>
          `${entry}: ${kb(bundles.get(entry)!.bytes)} over ${kb(bundleBudgetOf(entry))} (largest parts: ${bundles
            .get(entry)!
            .contributions.slice(0, 5)
            .map(([owner, bytes]) => `${owner} ${kb(bytes)}`)
            .join(', ')})`,
      );
    expect(over, 'over budget').toEqual([]);
  });

  it('gives no function a budget of its own: the renderer bundle reaches none (CloudFront serves it from S3)', () => {
    expect(OWN_BUNDLE_BUDGETS_BYTES).toEqual({});
    for (const [entry, bundle] of bundles) {
      expect(
        bundle.contributions.map(([owner]) => owner),
        entry,
      ).not.toContain('@scalar/api-reference');
    }
  });

  it('bundles nothing the runtime provides, and not the full OpenSearch client', () => {
    for (const [entry, bundle] of bundles) {
      const owners = bundle.contributions.map(([owner]) => owner);
      expect(
        owners.filter((owner) => owner.startsWith('@aws-sdk/')),
        entry,
      ).toEqual([]);
      expect(owners, entry).not.toContain('@opensearch-project/opensearch');
    }
  });

  it('lists every bundle in docs/benchmarks.md (npm run bench -- --parts coldstart)', () => {
    const report = readFileSync(join(PROJECT_ROOT, 'docs/benchmarks.md'), 'utf8');
    const start = report.indexOf('## Bundles and cold start');
    expect(start, 'docs/benchmarks.md has no "Bundles and cold start" section').toBeGreaterThanOrEqual(0);
    const section = report.slice(start, report.indexOf('<!-- end of coldstart section -->', start));
    const missing = lambdaEntries()
      .map(({ name }) => name)
      .filter((name) => !section.includes(`| \`${name}\` |`));
    expect(missing, 'bundles missing from the table: rerun npm run bench -- --parts coldstart').toEqual([]);
  });
});

describe('the bundles measured are the bundles CDK deploys', () => {
  let outdir: string;
  beforeAll(() => {
    outdir = mkdtempSync(join(tmpdir(), 'gcf-bundle-'));
  });
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('a ServiceFunction synthesized with bundling gets the same index.mjs as bench/bundles.ts', () => {
    const entry = 'lambdas/handlers/openapi.ts';
    const app = new App({ outdir });
    const stack = new Stack(app, 'BundleCheck');
    new ServiceFunction(stack, 'OpenApi', {
      entry: join(PROJECT_ROOT, entry),
      description: 'bundle check',
      serviceName: 'gcf-test',
      memorySizeMb: 128,
      timeout: Duration.seconds(3),
      logRetention: RetentionDays.ONE_DAY,
      logRemovalPolicy: RemovalPolicy.DESTROY,
      projectRoot: PROJECT_ROOT,
    });
    app.synth();
    const assets = readdirSync(outdir).filter((name) => name.startsWith('asset.') && statSync(join(outdir, name)).isDirectory());
    expect(assets).toHaveLength(1);
    const deployed = readFileSync(join(outdir, assets[0]!, 'index.mjs'));
    expect(deployed.length).toBe(bundles.get(entry)!.bytes);
  }, 120_000);
});
