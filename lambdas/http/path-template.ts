import { escapeRegex } from '../core/query/wire-patterns';

/**
 * A resource path template (`/grants-api/{id}`) as a pattern: each `{name}` matches one path
 * segment, every literal piece (the dot of /openapi.json) only itself; a trailing slash is allowed.
 */
export function compilePathTemplate(template: string): { pattern: RegExp; paramNames: string[] } {
  const paramNames: string[] = [];
  const source = template
    .split(/\{(\w+)\}/)
    .map((piece, i) => {
      if (i % 2 === 0) return escapeRegex(piece);
      paramNames.push(piece);
      return '([^/]+)';
    })
    .join('');
  return { pattern: new RegExp(`^${source}/?$`), paramNames };
}
