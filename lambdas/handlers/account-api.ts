import type { Context } from 'aws-lambda';
import { awsAccountServices } from '../composition/aws-account';
import { awsCorsOrigins } from '../composition/aws-cors';
import { awsTelemetry } from '../composition/aws-telemetry';
import { accountApiRoute, accountRouteName } from '../http/account-router';
import type { ApiEvent, ApiResult } from '../http/api-gateway';
import { apiHandler } from '../http/lambda-handler';

// One function for the whole account API (lib/api-routes.ts ACCOUNT_ROUTES): a dashboard session's many small calls meet one warm function.
const route = accountApiRoute(awsAccountServices);
// One wrapper per API Gateway route (a handful, from the stack's own resources), so each is measured under its own name.
const byRoute = new Map<string, (event: ApiEvent, context?: Context) => Promise<ApiResult>>();

export const handler = (event: ApiEvent, context?: Context): Promise<ApiResult> => {
  const name = accountRouteName(event);
  let wrapped = byRoute.get(name);
  if (!wrapped) {
    wrapped = apiHandler(name, awsTelemetry, route, awsCorsOrigins);
    byRoute.set(name, wrapped);
  }
  return wrapped(event, context);
};
