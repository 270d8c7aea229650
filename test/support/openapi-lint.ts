import { createRequire } from 'node:module';

/**
 * Redocly's OpenAPI linter, the one openapi-typescript (pinned in the client's devDependencies)
 * carries, loaded from beside it so that no second copy need be declared: structure against the
 * OpenAPI 3.1 types (webhooks included), references, and every example against its schema.
 */

interface Problem {
  severity: string;
  ruleId: string;
  message: string;
  location?: { pointer?: string }[];
}
interface Redocly {
  createConfig(config: Record<string, unknown>): Promise<unknown>;
  lintFromString(options: { source: string; absoluteRef: string; config: unknown }): Promise<Problem[]>;
}

const redocly = createRequire(createRequire(import.meta.url).resolve('openapi-typescript'))('@redocly/openapi-core') as Redocly;

const RULES = {
  extends: ['minimal'],
  rules: { 'no-invalid-media-type-examples': 'error', 'no-invalid-parameter-examples': 'error', 'no-invalid-schema-examples': 'error' },
};

/** The document's errors, one line each (`rule: message @ pointer`); empty when it is valid. */
export async function openApiErrors(document: unknown): Promise<string[]> {
  const problems = await redocly.lintFromString({ source: JSON.stringify(document), absoluteRef: 'openapi.json', config: await redocly.createConfig(RULES) });
  return problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message} @ ${p.location?.[0]?.pointer ?? '?'}`);
}
