import { invalidParameters } from '../core/errors';
import { parseMatchRequest } from '../core/matching/match-request';
import { CSV_MAX_ROWS, parseListQuery } from '../core/query/list-query';
import { parseSemanticSearchRequest } from '../core/query/semantic-search-request';
import { unknownNameIssues } from '../core/query/unknown-names';
import type { ResourceKind } from '../core/records';
import { exportFileName, exportRecords } from '../core/use-cases/export-records';
import { getRecord } from '../core/use-cases/get-record';
import { pageLinks, resumeListQuery } from '../core/use-cases/list-cursors';
import { listEnvelope, listRecords } from '../core/use-cases/list-records';
import { matchGrants, matchResponse } from '../core/use-cases/match-grants';
import { type SemanticSearchResponse, semanticSearch } from '../core/use-cases/semantic-search';
import { utcDate } from '../ports/clock';
import type { ServicesProvider } from '../ports/services';
import { jsonResult, queryParams, requestBody } from './api-gateway';
import { authenticatedRoute } from './authenticated-route';
import { acceptsCsv, csvResult, withVaryAccept } from './csv-result';

/** GET /<resource>-api: parse the query string, ask the index, wrap in the list envelope (or export it as CSV). */
export function listRoute(kind: ResourceKind, services: ServicesProvider) {
  return authenticatedRoute('api', services, async (event, startedAt) => {
    const ports = services();
    const params = queryParams(event);
    const parsed = parseListQuery(kind, params, utcDate(ports.clock), { acceptsCsv: acceptsCsv(event) });
    const { query, seen } = await resumeListQuery(ports.cursorKeys, parsed, ports.clock.now());
    if (query.format === 'csv') {
      const file = await exportRecords(ports, query, params.limit ? query.limit : CSV_MAX_ROWS, seen);
      const next = file.resumable ? await pageLinks(ports.cursorKeys, file.resumable, seen, ports.clock.now()) : undefined;
      return withVaryAccept(csvResult(file, exportFileName(kind, query.today), next?.nextCursor));
    }
    const outcome = await listRecords(ports, query);
    const links = await pageLinks(ports.cursorKeys, outcome, seen, ports.clock.now());
    return withVaryAccept(jsonResult(200, listEnvelope(outcome, performance.now() - startedAt, links)));
  });
}

/** Routes that take no query parameters refuse any given, as the lists refuse unknown ones. */
function refuseQueryParameters(event: Parameters<typeof queryParams>[0]): void {
  const issues = unknownNameIssues(Object.keys(queryParams(event)), [], 'a parameter of this endpoint');
  if (issues.length > 0) throw invalidParameters(issues);
}

/** GET /<resource>-api/{id}: the record itself, no envelope. */
export function getRoute(kind: ResourceKind, services: ServicesProvider) {
  return authenticatedRoute('api', services, async (event) => {
    refuseQueryParameters(event);
    const record = await getRecord(services().store, kind, event.pathParameters?.id);
    return jsonResult(200, record);
  });
}

/** POST /semantic-search: the body's query embedded once, matched across the kinds asked for. */
export function semanticSearchRoute(services: ServicesProvider) {
  return authenticatedRoute('api', services, async (event, startedAt) => {
    const ports = services();
    refuseQueryParameters(event);
    const request = parseSemanticSearchRequest(requestBody(event));
    const { results, minRelevance } = await semanticSearch(ports, request, utcDate(ports.clock));
    const response: SemanticSearchResponse = {
      results,
      count: results.length,
      meta: {
        response_time_ms: Math.round((performance.now() - startedAt) * 100) / 100,
        types: request.kinds,
        limit: request.limit,
        min_relevance: minRelevance,
      },
    };
    return jsonResult(200, response);
  });
}

/** POST /match-grants-api (pro and developer tiers): the open grants that fit a profile, scored and explained. */
export function matchGrantsRoute(services: ServicesProvider) {
  return authenticatedRoute('matching', services, async (event, startedAt) => {
    const ports = services();
    refuseQueryParameters(event);
    const request = parseMatchRequest(requestBody(event));
    const outcome = await matchGrants(ports, request, utcDate(ports.clock));
    return jsonResult(200, matchResponse(outcome, request, performance.now() - startedAt));
  });
}
