import { parseListQuery } from '../core/query/list-query';
import type { ResourceKind } from '../core/records';
import { getRecord } from '../core/use-cases/get-record';
import { listEnvelope, listRecords } from '../core/use-cases/list-records';
import { utcDate } from '../ports/clock';
import type { ServicesProvider } from '../ports/services';
import { jsonResult, queryParams } from './api-gateway';
import { authenticatedRoute } from './authenticated-route';

/** GET /<resource>-api: parse the query string, ask the index, wrap in the list envelope. */
export function listRoute(kind: ResourceKind, services: ServicesProvider) {
  return authenticatedRoute('api', services, async (event, startedAt) => {
    const { index, clock } = services();
    const query = parseListQuery(kind, queryParams(event), utcDate(clock));
    const outcome = await listRecords(index, query);
    return jsonResult(200, listEnvelope(outcome, performance.now() - startedAt));
  });
}

/** GET /<resource>-api/{id}: the record itself, no envelope. */
export function getRoute(kind: ResourceKind, services: ServicesProvider) {
  return authenticatedRoute('api', services, async (event) => {
    const record = await getRecord(services().store, kind, event.pathParameters?.id);
    return jsonResult(200, record);
  });
}
