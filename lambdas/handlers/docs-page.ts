import { awsCorsOrigins } from '../composition/aws-cors';
import { awsTelemetry } from '../composition/aws-telemetry';
import { FUNCTION_ENV } from '../composition/function-env';
import { docsAssetOriginOf, docsPageRoute } from '../http/docs-page';
import { apiHandler } from '../http/lambda-handler';

// The renderer's bundle comes from the stage's CloudFront distribution (lib/constructs/docs-assets.ts).
const assetOrigin = docsAssetOriginOf(process.env[FUNCTION_ENV.docsAssetBaseUrl], `the ${FUNCTION_ENV.docsAssetBaseUrl} environment variable`);

export const handler = apiHandler('GET /docs', awsTelemetry, docsPageRoute(assetOrigin), awsCorsOrigins);
