import { awsSearchServices } from '../composition/aws-search';
import { semanticSearchRoute } from '../http/routes';

export const handler = semanticSearchRoute(awsSearchServices);
