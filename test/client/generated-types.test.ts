import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GENERATED_TYPES, generateApiTypes } from '../../clients/typescript/scripts/generate-types';

describe('clients/typescript/src/api-types.ts', () => {
  it('is up to date with docs/openapi.json (run `npm run client:types` to refresh it)', async () => {
    expect(readFileSync(GENERATED_TYPES, 'utf8')).toBe(await generateApiTypes());
  });
});
