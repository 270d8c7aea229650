import { awsServices } from '../composition/aws';
import { listRoute } from '../http/routes';

export const handler = listRoute('grant', awsServices);
