import { awsServices } from '../composition/aws';
import { getRoute } from '../http/routes';

export const handler = getRoute('grant', awsServices);
