import { invalidParameters } from './errors';

/**
 * A request body that must be one JSON object: anything else (no body, broken JSON, an array, a
 * string) is a 400 on `body`, with `shape` showing what was expected.
 */
export function jsonObjectBody(body: string | null, shape: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body ?? '');
  } catch {
    throw invalidParameters([{ field: 'body', issue: `must be a JSON object: ${shape}` }]);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw invalidParameters([{ field: 'body', issue: `must be a JSON object: ${shape}` }]);
  return parsed as Record<string, unknown>;
}
