import { awsServices, awsTierKeys } from '../composition/aws';
import { awsTelemetry } from '../composition/aws-telemetry';
import { lambdaHandler } from '../http/lambda-handler';
import { requestAuthorizerHandler } from '../http/request-authorizer';

export const handler = lambdaHandler(
  'authorizer',
  awsTelemetry,
  requestAuthorizerHandler(() => ({ keys: awsServices().keys, clock: awsServices().clock, tierKeys: awsTierKeys() })),
);
