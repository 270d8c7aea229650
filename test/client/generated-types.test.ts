import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DASHBOARD_API_TYPES, GENERATED_TYPES, generateAccountApiTypes, generateApiTypes } from '../../clients/typescript/scripts/generate-types';

describe('clients/typescript/src/api-types.ts', () => {
  it('is up to date with docs/openapi.json (run `npm run client:types` to refresh it)', async () => {
    expect(readFileSync(GENERATED_TYPES, 'utf8')).toBe(await generateApiTypes());
  });
});

describe('dashboard/src/account-api-types.ts', () => {
  it('is up to date with docs/account-api.json (run `npm run openapi:account` to refresh it)', async () => {
    expect(readFileSync(DASHBOARD_API_TYPES, 'utf8')).toBe(await generateAccountApiTypes());
  });
});
