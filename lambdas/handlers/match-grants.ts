import { awsSearchServices } from '../composition/aws-search';
import { matchGrantsRoute } from '../http/routes';

export const handler = matchGrantsRoute(awsSearchServices);
