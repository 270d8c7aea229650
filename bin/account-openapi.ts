// Regenerates docs/account-api.json from the account API's operations, and the dashboard's types
// from it: `npm run openapi:account`.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DASHBOARD_API_TYPES, generateAccountApiTypes } from '../clients/typescript/scripts/generate-types';
import { buildAccountOpenApiDocument } from '../lambdas/http/account-openapi';

const target = new URL('../docs/account-api.json', import.meta.url);
writeFileSync(target, `${JSON.stringify(buildAccountOpenApiDocument(), null, 2)}\n`);
console.log(`wrote ${target.pathname}`);
writeFileSync(DASHBOARD_API_TYPES, await generateAccountApiTypes());
console.log(`wrote ${fileURLToPath(DASHBOARD_API_TYPES)}`);
