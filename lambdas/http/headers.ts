/** A request's header map as API Gateway (and the local server) gives it: one value a name. */
export type HeaderMap = Readonly<Record<string, string | undefined>>;

/**
 * The value of header `name` in `headers`, whatever the case of either (undefined when absent).
 * Dependency-free, so that cors.ts stays importable by the CDK code.
 */
export function headerOf(headers: HeaderMap | null | undefined, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers ?? {})) {
    if (key.toLowerCase() === wanted && value !== undefined) return value;
  }
  return undefined;
}
