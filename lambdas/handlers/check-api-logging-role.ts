import { APIGatewayClient, GetAccountCommand } from '@aws-sdk/client-api-gateway';
import { awsTelemetry } from '../composition/aws-telemetry';
import { logger } from '../http/api-gateway';
import { lambdaHandler } from '../http/lambda-handler';

/**
 * A deploy-time prerequisite check (a CloudFormation custom resource, run before the API stage):
 * API Gateway can write a stage's execution and access logs only once the account and region
 * have a CloudWatch Logs role in API Gateway's settings. Without it CloudFormation fails the stage
 * halfway through the deployment with "CloudWatch Logs role ARN must be set in account settings
 * to enable logging"; this fails first, with what to do. Stages that own the role
 * (`-c apiCloudWatchRole=true`) do not run it.
 */

export const PHYSICAL_RESOURCE_ID = 'gcf-api-logging-role';

export const MISSING_ROLE_MESSAGE =
  'API Gateway in this account and region has no CloudWatch Logs role, so the API stage cannot enable its logs. ' +
  'Deploy one stage of this account with -c apiCloudWatchRole=true (it creates the role and keeps it when the stage is deleted), ' +
  'or set a role in the API Gateway console (Settings, CloudWatch log role ARN); see docs/deploy.md, "Prerequisites".';

export interface LoggingRoleCheckEvent {
  RequestType: 'Create' | 'Update' | 'Delete';
  PhysicalResourceId?: string;
}

export async function checkApiLoggingRole(
  event: LoggingRoleCheckEvent,
  cloudWatchRoleArn: () => Promise<string | undefined>,
): Promise<{ PhysicalResourceId: string; Data?: { RoleArn: string } }> {
  if (event.RequestType === 'Delete') return { PhysicalResourceId: event.PhysicalResourceId ?? PHYSICAL_RESOURCE_ID };
  const roleArn = await cloudWatchRoleArn();
  if (!roleArn) throw new Error(MISSING_ROLE_MESSAGE);
  logger.info('API Gateway has a CloudWatch Logs role', { roleArn });
  return { PhysicalResourceId: PHYSICAL_RESOURCE_ID, Data: { RoleArn: roleArn } };
}

export const handler = lambdaHandler('api-logging-role-check', awsTelemetry, (event: LoggingRoleCheckEvent) =>
  checkApiLoggingRole(event, async () => {
    const client = new APIGatewayClient({});
    try {
      return (await client.send(new GetAccountCommand({}))).cloudwatchRoleArn;
    } finally {
      client.destroy();
    }
  }),
);
