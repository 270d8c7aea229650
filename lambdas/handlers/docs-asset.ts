// The renderer's standalone bundle, inlined as a string by esbuild's text loader: the function
// ships it inside its own index.mjs (its bundle budget says so), with no CDN and no file lookup.
import scalarStandalone from '../../node_modules/@scalar/api-reference/dist/browser/standalone.js' with { type: 'text' };
import { awsCorsOrigins } from '../composition/aws-cors';
import { awsTelemetry } from '../composition/aws-telemetry';
import { docsAssetRoute } from '../http/docs-page';
import { apiHandler } from '../http/lambda-handler';

export const handler = apiHandler(
  'GET /docs/scalar.js',
  awsTelemetry,
  docsAssetRoute(() => scalarStandalone),
  awsCorsOrigins,
);
