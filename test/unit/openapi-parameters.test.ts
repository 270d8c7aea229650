import { describe, expect, it } from 'vitest';
import { LIST_PARAMS } from '../../lambdas/core/query/list-query';
import { buildOpenApiDocument } from '../../lambdas/http/openapi';
import { listParameter, PARAMETER_EXAMPLE_NAME } from '../../lambdas/http/openapi-parameters';

/**
 * The list parameters show their examples on the docs page without the try-it panel sending them:
 * test/browser/docs-page.test.ts sends the request in Chromium; this checks the document's shape
 * for every operation, with a model of how Scalar 1.76 picks a parameter's first value.
 */

interface Example {
  value: unknown;
  'x-disabled'?: boolean;
}
interface Parameter {
  name: string;
  in: string;
  schema: Record<string, unknown>;
  examples?: Record<string, Example>;
}
type Paths = Record<string, Record<string, { parameters?: Parameter[] }>>;

const { paths } = buildOpenApiDocument() as { paths: Paths };
const operations = Object.entries(paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, operation]) => ({ name: `${method} ${path}`, operation })),
);

/**
 * What Scalar's try-it panel puts in a query parameter's row at first, and whether it is ticked
 * (sent): the operation's example name, else the schema's default or first example, ticked when
 * it has a value unless the example says x-disabled.
 */
function firstRow(parameter: Parameter, exampleName: string): { value: unknown; sent: boolean } {
  const example: Example | undefined =
    parameter.examples?.[exampleName] ??
    (parameter.schema.default !== undefined ? { value: parameter.schema.default } : undefined) ??
    ((parameter.schema.examples as unknown[] | undefined)?.[0] !== undefined ? { value: (parameter.schema.examples as unknown[])[0] } : undefined);
  if (!example) return { value: undefined, sent: false };
  return { value: example.value, sent: example['x-disabled'] !== true };
}

describe('the list parameters in the OpenAPI document', () => {
  it('let a first try-it request send no query parameter', () => {
    for (const { name, operation } of operations) {
      const query = (operation.parameters ?? []).filter((p) => p.in === 'query');
      const names = new Set(query.flatMap((p) => Object.keys(p.examples ?? {})));
      // Scalar picks one example name for a whole operation: all parameters use the same.
      expect([...names], name).toEqual(query.length > 0 ? [PARAMETER_EXAMPLE_NAME] : []);
      expect(
        query.filter((p) => firstRow(p, PARAMETER_EXAMPLE_NAME).sent).map((p) => p.name),
        name,
      ).toEqual([]);
    }
  });

  it('show each example, or the default, in its row', () => {
    const grants = Object.fromEntries(paths['/grants-api']!.get!.parameters!.map((p) => [p.name, firstRow(p, PARAMETER_EXAMPLE_NAME).value]));
    expect(grants).toMatchObject({
      limit: 20,
      offset: 0,
      count_only: false,
      search_mode: 'keyword',
      opportunity_type: 'open',
      status: 'open,posted',
      states: 'CA,NY',
      include_national: false,
      facets: 'status,category',
    });
    expect(grants.search).toBeUndefined();
    const contracts = Object.fromEntries(paths['/contracts-api']!.get!.parameters!.map((p) => [p.name, firstRow(p, PARAMETER_EXAMPLE_NAME).value]));
    expect(contracts).toMatchObject({ naics: '541512', status: 'open,closed' });
  });

  it('keep the schema as the parser reads it, with its default, and no example in it', () => {
    const limit = listParameter(LIST_PARAMS.grant.find((p) => p.name === 'limit')!);
    expect(limit.schema).toEqual({ type: 'integer', minimum: 1, maximum: 100, default: 20 });
    const states = listParameter(LIST_PARAMS.grant.find((p) => p.name === 'states')!);
    expect(states.schema).not.toHaveProperty('examples');
    expect(states.examples).toEqual({ [PARAMETER_EXAMPLE_NAME]: { summary: 'An example', value: 'CA,NY', 'x-disabled': true } });
  });

  it('would be sent by the model for a schema default or example left in the schema', () => {
    expect(firstRow({ name: 'limit', in: 'query', schema: { type: 'integer', default: 20 } }, PARAMETER_EXAMPLE_NAME)).toEqual({ value: 20, sent: true });
    expect(firstRow({ name: 'states', in: 'query', schema: { type: 'string', examples: ['CA,NY'] } }, PARAMETER_EXAMPLE_NAME)).toEqual({
      value: 'CA,NY',
      sent: true,
    });
  });
});
