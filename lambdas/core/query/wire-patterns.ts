/**
 * JSON Schema patterns that say exactly what the parsers accept, so that the OpenAPI document
 * neither promises a value the service refuses nor forbids one it takes (a conformance tool
 * generates requests from these and expects the service to agree). JSON Schema patterns carry no
 * flags, so case-insensitivity is spelled out letter by letter.
 */

/** `text` as a regular expression that matches only itself. */
export const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Matches `word` in any case. */
export function anyCasePattern(word: string): string {
  return [...word].map((c) => (c.toLowerCase() !== c.toUpperCase() ? `[${c.toLowerCase()}${c.toUpperCase()}]` : escapeRegex(c))).join('');
}

/** One of `values`, in any case. */
export const anyCaseChoice = (values: readonly string[]) => `(?:${values.map(anyCasePattern).join('|')})`;

/** A whole comma-separated list of 1 to `maxItems` items, each optionally padded with spaces. */
export const listPattern = (item: string, maxItems: number) => `^\\s*${item}\\s*(?:,\\s*${item}\\s*){0,${maxItems - 1}}$`;

/** Text with something in it once control characters and surrounding spaces are dropped. */
export const NON_BLANK_PATTERN = '[^\\s\\u0000-\\u001f\\u007f]';
