import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The installed @scalar/api-reference's standalone browser bundle: what a deployment uploads for
 * CloudFront (lib/constructs/docs-assets.ts) and the local server serves. The package exports no
 * subpath for it, so it is found next to the package's main module (dist/index.js -> dist/browser/).
 */
export function scalarStandalonePath(): string {
  const main = createRequire(import.meta.url).resolve('@scalar/api-reference');
  return join(dirname(main), 'browser', 'standalone.js');
}

export function readScalarStandalone(): string {
  return readFileSync(scalarStandalonePath(), 'utf8');
}
