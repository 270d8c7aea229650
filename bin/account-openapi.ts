// Regenerates docs/account-api.json from the account API's operations: `npm run openapi:account`.
import { writeFileSync } from 'node:fs';
import { buildAccountOpenApiDocument } from '../lambdas/http/account-openapi';

const target = new URL('../docs/account-api.json', import.meta.url);
writeFileSync(target, `${JSON.stringify(buildAccountOpenApiDocument(), null, 2)}\n`);
console.log(`wrote ${target.pathname}`);
