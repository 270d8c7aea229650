import { DEADLINE_BUCKETS, FACET_NAMES, FACET_VALUE_CAP, type FacetName, NATIONAL_STATE_VALUE } from '../core/query/facets';

/**
 * The `facets` member of the list envelopes (lambdas/core/query/facets.ts), for the OpenAPI
 * document (openapi.ts puts it in components as `Facets`).
 */

const FACET_DESCRIPTIONS: Record<FacetName, string> = {
  status:
    'The status filter value of each record today, mutually exclusive: grants open, forecasted, closed; contracts open, closed. Every value, zeros included; the counts sum to pagination.total',
  category: `Each of the records' categories, once per record, grouped ignoring case as the category filter matches; at most ${FACET_VALUE_CAP} values with a count, most first (ties by value)`,
  states: `Each postal code in the records' states; records with no state restriction count under "${NATIONAL_STATE_VALUE}" (states=${NATIONAL_STATE_VALUE} selects them); at most ${FACET_VALUE_CAP} values with a count, most first (ties by value)`,
  funder: `The records' funders by name, each with id, the funder's id (two funders of one name are two values): funder_id=<id> selects the value's records. At most ${FACET_VALUE_CAP} values with a count, most first (ties by value; at the cap, by id)`,
  deadline_within: `Days from today (UTC) to the deadline: ${DEADLINE_BUCKETS.join(', ')} (7: today to 7 days ahead; 30: 8 to 30; 90: 31 to 90; later: more than 90; none: no deadline; passed: before today). Every bucket, in that order, zeros included; the counts sum to pagination.total`,
};

const FACET_VALUE = {
  type: 'object',
  required: ['value', 'count'],
  additionalProperties: false,
  properties: { value: { type: 'string' }, count: { type: 'integer', minimum: 0 } },
};

/** A funder value carries the funder's id, so it can be passed back to the funder_id filter. */
const FUNDER_FACET_VALUE = {
  ...FACET_VALUE,
  required: [...FACET_VALUE.required, 'id'],
  properties: { ...FACET_VALUE.properties, id: { type: 'string', format: 'uuid', description: "The funder's id, for the funder_id filter" } },
};

export const FACETS_SCHEMA = {
  type: 'object',
  description: 'Only the facets asked for with the facets parameter, counted over the whole filtered result set (every search mode), not the page',
  additionalProperties: false,
  properties: Object.fromEntries(
    FACET_NAMES.map((name) => [name, { type: 'array', description: FACET_DESCRIPTIONS[name], items: name === 'funder' ? FUNDER_FACET_VALUE : FACET_VALUE }]),
  ),
};
