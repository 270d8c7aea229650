import { awsServices } from '../composition/aws';
import { awsCorsOrigins } from '../composition/aws-cors';
import { awsTelemetry } from '../composition/aws-telemetry';
import { apiHandler } from '../http/lambda-handler';
import { getRoute } from '../http/routes';

export const handler = apiHandler('GET /grants-api/{id}', awsTelemetry, getRoute('grant', awsServices), awsCorsOrigins);
