import * as z from 'zod/mini';
import { type FieldIssue, invalidParameters } from '../core/errors';
import { jsonObjectBody } from '../core/json-body';
import { unknownNameIssues } from '../core/query/unknown-names';
import { type ApiEvent, queryParams, requestBody } from './api-gateway';

/**
 * Reading the account API's requests with zod (zod/mini: a small bundle): strict objects, so an
 * unknown field or query parameter is a 400 naming it, as on the public API; each issue becomes
 * one entry of the error's details. The same schemas make docs/account-api.json.
 */

export type ObjectSchema = z.ZodMiniObject<z.core.$ZodLooseShape, z.core.$strict>;

function fieldOf(path: readonly PropertyKey[], root: string): string {
  return path.map(String).join('.') || root;
}

function issuesOf(error: z.core.$ZodError, schema: ObjectSchema, what: string, root: string): FieldIssue[] {
  return error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? unknownNameIssues(issue.keys, Object.keys(schema.def.shape), what)
      : [{ field: fieldOf(issue.path, root), issue: issue.message }],
  );
}

/** The query string against `schema` (an object of optional strings); a parameter given twice is a 400. */
export function parseQuery<S extends ObjectSchema>(event: ApiEvent, schema: S | undefined): z.infer<S> {
  const params = queryParams(event);
  const issues: FieldIssue[] = [];
  const single: Record<string, string> = {};
  for (const [name, values] of Object.entries(params)) {
    if (values.length > 1) issues.push({ field: name, issue: 'is given more than once' });
    single[name] = values[values.length - 1]!;
  }
  if (!schema) {
    issues.push(...unknownNameIssues(Object.keys(single), [], 'a parameter of this endpoint'));
    if (issues.length > 0) throw invalidParameters(issues);
    return {} as z.infer<S>;
  }
  const result = z.safeParse(schema, single);
  if (!result.success) issues.push(...issuesOf(result.error, schema, 'a parameter of this endpoint', 'query'));
  if (issues.length > 0) throw invalidParameters(issues);
  return result.data as z.infer<S>;
}

/**
 * The JSON body against `schema`. Without a schema the route takes no body: none, or `{}`. An
 * optional body (every field optional) may be left out.
 */
export function parseBody<S extends ObjectSchema>(event: ApiEvent, schema: S | undefined, shape: string): z.infer<S> {
  const text = requestBody(event);
  const blank = text === null || text.trim() === '';
  if (!schema) {
    if (blank) return {} as z.infer<S>;
    const body = jsonObjectBody(text, '{}');
    const issues = unknownNameIssues(Object.keys(body), [], 'a field of the request body');
    if (issues.length > 0) throw invalidParameters(issues);
    return {} as z.infer<S>;
  }
  const body = blank && z.safeParse(schema, {}).success ? {} : jsonObjectBody(text, shape);
  const result = z.safeParse(schema, body);
  if (!result.success) throw invalidParameters(issuesOf(result.error, schema, 'a field of the request body', 'body'));
  return result.data as z.infer<S>;
}

/** A zod check's error message for a missing or mistyped value. */
export const expected = (what: string) => ({ error: (issue: { input: unknown }) => (issue.input === undefined ? 'is required' : `must be ${what}`) });

export const describedAs = <T extends z.ZodMiniType>(schema: T, description: string): T => schema.check(z.describe(description)) as T;
