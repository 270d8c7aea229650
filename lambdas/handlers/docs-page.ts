import { awsCorsOrigins } from '../composition/aws-cors';
import { awsTelemetry } from '../composition/aws-telemetry';
import { FUNCTION_ENV } from '../composition/function-env';
import { type DocsAsset, docsAssetIntegrityFrom, docsAssetOriginOf, docsPageRoute } from '../http/docs-page';
import { apiHandler } from '../http/lambda-handler';

// The renderer's bundle comes from the stage's CloudFront distribution (lib/constructs/docs-assets.ts), pinned by its hash.
const origin = docsAssetOriginOf(process.env[FUNCTION_ENV.docsAssetBaseUrl], `the ${FUNCTION_ENV.docsAssetBaseUrl} environment variable`);
const asset: DocsAsset | undefined =
  origin === undefined
    ? undefined
    : {
        origin,
        integrity: docsAssetIntegrityFrom(process.env[FUNCTION_ENV.docsAssetIntegrity], `the ${FUNCTION_ENV.docsAssetIntegrity} environment variable`),
      };

export const handler = apiHandler('GET /docs', awsTelemetry, docsPageRoute(asset), awsCorsOrigins);
