import { afterAll, beforeAll, describe, it } from 'vitest';
import { OpenSearchHttpClient } from '../../lambdas/adapters/aws/opensearch-client';
import { INDEX_ALIASES, OpenSearchIndex } from '../../lambdas/adapters/aws/opensearch-index';
import { createIndexBody } from '../../lambdas/adapters/aws/opensearch-mappings';
import { type AnyRecord, RESOURCE_KINDS, type ResourceKind } from '../../lambdas/core/records';
import { type EmbeddedStack, startEmbeddedStack } from '../../local/embedded-stack';
import { ensureLocalKeys, type LocalKeys } from '../../local/local-keys';
import { type ServedApi, serveOverHttp } from '../support/api-server';
import { type StandInOpenSearch, type StandInRequest, startStandInOpenSearch } from '../support/stand-in-opensearch';
import { type DomainMode, type FaultyDomain, startFaultyDomain } from './helpers/faulty-domain';
import { type SearchRoutes, searchRoutes } from './helpers/search-routes';

/**
 * The search domain down while the API runs: the API's handlers over real HTTP, with records in
 * the store (dynalite) and the index on OpenSearch as in AWS (the adapter and the thin client the
 * Lambdas use, with their production settings), the domain behind a proxy that fails on request.
 * Every route that needs the index must answer a clear 503 SEARCH_UNAVAILABLE, in time for the
 * API function to send it (before its own timeout, after which API Gateway would answer a bare
 * 5xx); get-by-id reads the store and keeps working; when the domain is back, so is search, with
 * no restart.
 */

const SMALL = { funders: 10, grants: 60, contracts: 20, awardedGrants: 4, awardedContracts: 2 };

let stack: EmbeddedStack;
let openSearch: StandInOpenSearch;
let domain: FaultyDomain;
let served: ServedApi;
let keys: LocalKeys;
let routes: SearchRoutes;
const records: Record<ResourceKind, AnyRecord[]> = { grant: [], contract: [], funder: [] };

const kindOfPath = (path: string) => RESOURCE_KINDS.find((kind) => path.startsWith(`/${INDEX_ALIASES[kind]}/`))!;

/** The stand-in does not evaluate queries: it answers with the stored records (and their id doc values, as hybrid rank lists ask), by id when asked for ids. */
function answerSearch(request: StandInRequest) {
  const kind = kindOfPath(request.path);
  // As an engine does when asked to sort, each hit carries its sort values (here the score and the id): the position after it.
  const hit = (record: AnyRecord) => ({
    _index: `${INDEX_ALIASES[kind]}-v1`,
    _id: record.id,
    _score: 0.9,
    _source: record,
    fields: { id: [record.id] },
    sort: [0.9, record.id],
  });
  const list = (body: Record<string, any>) => {
    const ids: string[] | undefined = body.query?.ids?.values ?? body.query?.bool?.filter?.find((f: any) => f.ids)?.ids.values;
    const matching = ids ? records[kind].filter((r) => ids.includes(r.id)) : records[kind];
    const from = Number(body.from ?? 0);
    return {
      took: 1,
      timed_out: false,
      hits: { total: { value: matching.length, relation: 'eq' }, hits: matching.slice(from, from + Number(body.size ?? 10)).map(hit) },
    };
  };
  if (request.path.endsWith('/_search')) return { json: list(JSON.parse(request.body)) };
  if (request.path.endsWith('/_msearch')) {
    const lines = request.body
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    return { json: { took: 1, responses: lines.filter((_, i) => i % 2 === 1).map((body) => ({ status: 200, ...list({ ...body, size: 20 }) })) } };
  }
  return undefined;
}

/** How long vector work is shed after an overload: short here, so the suite sees search come back. */
const SHED_MS = 1_000;

beforeAll(async () => {
  stack = await startEmbeddedStack({ seed: SMALL });
  for (const kind of RESOURCE_KINDS) for await (const page of stack.services.store.scan(kind)) records[kind].push(...(page as AnyRecord[]));
  const space = stack.services.embedder.space;
  openSearch = await startStandInOpenSearch();
  for (const kind of RESOURCE_KINDS) openSearch.createIndex(`${INDEX_ALIASES[kind]}-v1`, createIndexBody(kind, space, INDEX_ALIASES[kind]) as never);
  openSearch.respond = answerSearch;
  domain = await startFaultyDomain(openSearch.endpoint);
  // As the Lambdas build it (lambdas/composition/aws-search.ts), unsigned: the client's and the adapter's defaults.
  const index = new OpenSearchIndex(new OpenSearchHttpClient({ node: domain.endpoint }), { space, endpoint: domain.endpoint, shedMs: SHED_MS });
  ({ keys } = await ensureLocalKeys(stack.services));
  served = await serveOverHttp({ ...stack.services, index }, stack.services);
  routes = searchRoutes(served.baseUrl, keys.developer, domain.endpoint);
});
afterAll(async () => {
  await served?.close();
  await domain?.close();
  await openSearch?.close();
  await stack?.close();
});

describe('search index outage', () => {
  it('with the domain up, every search route answers 200 (the baseline)', async () => {
    await routes.expectSearchesAnswer(200, 'up');
  });

  const OUTAGES: [string, DomainMode][] = [
    ['answering 503 (overloaded)', '503'],
    ['resetting every connection', 'reset'],
    ['with its port closed (connection refused)', 'down'],
    ['accepting requests and never answering', 'hang'],
  ];
  it.each(OUTAGES)(
    'a domain %s: search is 503 SEARCH_UNAVAILABLE in time, get-by-id works, and search is back when the domain is',
    async (_name, mode) => {
      await domain.setMode(mode);
      try {
        await routes.expectSearchesAnswer(503, mode);
        await routes.expectGetByIdWorks(records, mode);
      } finally {
        await domain.setMode('up');
      }
      // An overloaded domain's vector work stays shed for a while (search-domain-faults-on-engine.test.ts shows it).
      if (mode === '503') await new Promise((resolve) => setTimeout(resolve, SHED_MS + 100));
      // Back without a restart: stale connections are replaced.
      await routes.expectSearchesAnswer(200, `after ${mode}`);
    },
    60_000,
  );
});
