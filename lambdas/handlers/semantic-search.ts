import { awsCorsOrigins } from '../composition/aws-cors';
import { awsSearchServices } from '../composition/aws-search';
import { awsTelemetry } from '../composition/aws-telemetry';
import { apiHandler } from '../http/lambda-handler';
import { semanticSearchRoute } from '../http/routes';

export const handler = apiHandler('POST /semantic-search', awsTelemetry, semanticSearchRoute(awsSearchServices), awsCorsOrigins);
