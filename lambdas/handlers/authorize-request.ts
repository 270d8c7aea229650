import { awsServices } from '../composition/aws';
import { requestAuthorizerHandler } from '../http/request-authorizer';

export const handler = requestAuthorizerHandler(awsServices);
