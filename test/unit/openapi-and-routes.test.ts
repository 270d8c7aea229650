import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LIST_PARAMS } from '../../lambdas/core/query/list-query';
import { DOCS_ASSET_PATH } from '../../lambdas/http/docs-page';
import { buildOpenApiDocument } from '../../lambdas/http/openapi';
import type { Services } from '../../lambdas/ports/services';
import { API_ROUTES } from '../../lib/api-routes';
import { localRoutes } from '../../local/api-routes';

describe('docs/openapi.json', () => {
  it('is up to date with the schemas (run `npm run openapi` to refresh it)', () => {
    const committed = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8'));
    expect(committed).toEqual(buildOpenApiDocument());
  });

  it('documents every list parameter of every resource', () => {
    const doc = buildOpenApiDocument() as { paths: Record<string, { get: { parameters: { name: string }[] } }> };
    expect(doc.paths['/grants-api']!.get.parameters.map((p) => p.name)).toEqual(LIST_PARAMS.grant.map((p) => p.name));
    expect(doc.paths['/contracts-api']!.get.parameters.map((p) => p.name)).toEqual(LIST_PARAMS.contract.map((p) => p.name));
    expect(doc.paths['/funders-api']!.get.parameters.map((p) => p.name)).toEqual(LIST_PARAMS.funder.map((p) => p.name));
  });
});

describe('route tables', () => {
  it('the local server serves exactly the routes API Gateway deploys, and the docs script CloudFront serves on AWS', () => {
    const local = localRoutes({} as Services)
      .map((r) => `${r.method} ${r.resource}`)
      .sort();
    const deployed = API_ROUTES.map((r) => `${r.method} ${r.path}`);
    expect(deployed).not.toContain(`GET ${DOCS_ASSET_PATH}`);
    expect(local).toEqual([...deployed, `GET ${DOCS_ASSET_PATH}`].sort());
  });
});
