import { awsCorsOrigins } from '../composition/aws-cors';
import { awsTelemetry } from '../composition/aws-telemetry';
import { apiHandler } from '../http/lambda-handler';
import { openApiRoute } from '../http/openapi';

// The local server imports this handler too; called without a Lambda context it is the bare route.
export const handler = apiHandler('GET /openapi.json', awsTelemetry, openApiRoute(), awsCorsOrigins);
