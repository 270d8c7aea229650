import { awsCorsOrigins } from '../composition/aws-cors';
import { awsTelemetry } from '../composition/aws-telemetry';
import { docsPageRoute } from '../http/docs-page';
import { apiHandler } from '../http/lambda-handler';

export const handler = apiHandler('GET /docs', awsTelemetry, docsPageRoute(), awsCorsOrigins);
