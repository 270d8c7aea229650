/**
 * The searchable collection of one kind on the evaluation date: exactly what the service's
 * default listing (no search, default filters, so opportunity_type=open) returns. It is read from
 * the service's own answer rather than recomputed here, so the baseline and the judgements are cut
 * to the same set the service searches, whatever rule the service uses for "applyable".
 */
import { LIMITS, parseListQuery, SORT_FIELDS } from '../../lambdas/core/query/list-query';
import type { RecordByKind } from '../../lambdas/core/records';
import { listRecords } from '../../lambdas/core/use-cases/list-records';
import type { EmbeddedStack } from '../../local/embedded-stack';
import { type EvalScope, scopeParams } from './scope';

export type OpportunityKind = 'grant' | 'contract';

export interface Collection<K extends OpportunityKind = OpportunityKind> {
  kind: K;
  /** Full stored records, by id. */
  records: Map<string, RecordByKind[K]>;
  /** How the ids were gathered, for the report. */
  method: string;
}

/** Ids of one default listing, one sort order, as deep as offset paging reaches (offsetMax + pageMax). */
async function listedIds(
  stack: EmbeddedStack,
  kind: OpportunityKind,
  today: string,
  scope: EvalScope,
  sortBy: string,
  order: 'asc' | 'desc',
  into: Set<string>,
  total: number,
): Promise<void> {
  for (let offset = 0; offset <= LIMITS.offsetMax && into.size < total; offset += LIMITS.pageMax) {
    const query = parseListQuery(
      kind,
      { ...scopeParams(kind, scope), limit: [String(LIMITS.pageMax)], offset: [String(offset)], sort_by: [sortBy], order: [order] },
      today,
    );
    const { results } = await listRecords(stack.services, query);
    for (const record of results) into.add(record.id);
    if (results.length < LIMITS.pageMax) return;
  }
}

/**
 * Pages the default listing by created_at (both orders). Offset paging stops at 10,100 records
 * per ordering, so a bigger listing is also read from both ends of every other sort field until
 * the union reaches the listing's total; if it still does not, the run fails rather than measure
 * on a partial collection. Full records then come from a store scan, keeping the listed ids.
 */
export async function searchableCollection<K extends OpportunityKind>(stack: EmbeddedStack, kind: K, today: string, scope: EvalScope): Promise<Collection<K>> {
  const { total } = await listRecords(stack.services, parseListQuery(kind, { ...scopeParams(kind, scope), count_only: ['true'] }, today));
  const ids = new Set<string>();
  const orderings: [string, 'asc' | 'desc'][] = SORT_FIELDS[kind].flatMap(
    (field) =>
      [
        [field, 'desc'],
        [field, 'asc'],
      ] as [string, 'asc' | 'desc'][],
  );
  orderings.sort(([a], [b]) => Number(b === 'created_at') - Number(a === 'created_at'));
  let used = 0;
  for (const [field, order] of orderings) {
    if (ids.size >= total) break;
    await listedIds(stack, kind, today, scope, field, order, ids, total);
    used++;
  }
  if (ids.size !== total) throw new Error(`${kind} collection: the default listing says ${total} records, paging reached ${ids.size}`);

  const records = new Map<string, RecordByKind[K]>();
  for await (const page of stack.services.store.scan(kind)) {
    for (const record of page) if (ids.has(record.id)) records.set(record.id, record);
  }
  if (records.size !== ids.size) throw new Error(`${kind} collection: ${ids.size - records.size} listed ids are not in the record store`);
  const method =
    used === 1
      ? 'default listing paged by created_at'
      : `default listing paged in ${used} sort orders (more than ${LIMITS.offsetMax + LIMITS.pageMax} records)`;
  return { kind, records, method };
}
