import { type ParamSpec, paramJsonSchema } from '../core/query/params';

/**
 * The list operations' query parameters in the OpenAPI document, with their examples shown but
 * never sent on their own. The docs page's try-it panel (Scalar) fills a parameter from its schema's
 * `default` or `examples` and ticks it, so a first request would carry every example filter. A
 * parameter-level example marked `x-disabled` takes precedence there: the value is shown in the
 * row, unticked, and sent only when the reader ticks it. Every parameter of an operation uses the
 * one example name, since Scalar picks a single example name per operation.
 */

/** The name of every list parameter's example (Scalar selects examples by name across an operation). */
export const PARAMETER_EXAMPLE_NAME = 'example';

export function listParameter(spec: ParamSpec) {
  // The examples move from the schema to the parameter, where x-disabled keeps them unsent.
  const { examples, ...schema } = paramJsonSchema(spec.kind) as Record<string, unknown> & { examples?: unknown[] };
  const example = examples?.[0] ?? spec.default;
  return {
    name: spec.name,
    in: 'query',
    required: false,
    description: spec.description,
    ...(spec.deprecated ? { deprecated: true } : {}),
    schema: { ...schema, ...(spec.default !== undefined ? { default: spec.default } : {}) },
    ...(example !== undefined
      ? { examples: { [PARAMETER_EXAMPLE_NAME]: { summary: example === spec.default ? 'The default' : 'An example', value: example, 'x-disabled': true } } }
      : {}),
  };
}
