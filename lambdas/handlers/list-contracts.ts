import { awsCorsOrigins } from '../composition/aws-cors';
import { awsSearchServices } from '../composition/aws-search';
import { awsTelemetry } from '../composition/aws-telemetry';
import { apiHandler } from '../http/lambda-handler';
import { listRoute } from '../http/routes';

export const handler = apiHandler('GET /contracts-api', awsTelemetry, listRoute('contract', awsSearchServices), awsCorsOrigins);
