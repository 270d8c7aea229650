import { awsSearchServices } from '../composition/aws-search';
import { listRoute } from '../http/routes';

export const handler = listRoute('grant', awsSearchServices);
