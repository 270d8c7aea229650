import { join } from 'node:path';
import { CustomResource, Duration, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Provider } from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { ServiceFunction } from './service-function';

export interface ApiLoggingPrerequisiteProps {
  readonly projectRoot: string;
  readonly serviceName: string;
  readonly logRetention: RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
}

/**
 * Checks, before the API stage is created, that API Gateway has its account-wide CloudWatch Logs
 * role (lambdas/handlers/check-api-logging-role.ts); the stage depends on `resource`. Used by the
 * stages that do not own the role themselves (ApiSettings.manageAccountCloudWatchRole).
 */
export class ApiLoggingPrerequisite extends Construct {
  readonly function: ServiceFunction;
  readonly resource: CustomResource;

  constructor(scope: Construct, id: string, props: ApiLoggingPrerequisiteProps) {
    super(scope, id);
    const check = (this.function = new ServiceFunction(this, 'Function', {
      entry: join(props.projectRoot, 'lambdas/handlers/check-api-logging-role.ts'),
      description: 'Deploy-time check that API Gateway has its CloudWatch Logs role (lambdas/handlers/check-api-logging-role.ts)',
      serviceName: props.serviceName,
      memorySizeMb: 128,
      timeout: Duration.seconds(30),
      logRetention: props.logRetention,
      logRemovalPolicy: props.logRemovalPolicy,
      projectRoot: props.projectRoot,
    }));
    const stack = Stack.of(this);
    // GetAccount reads the region's API Gateway settings: the one resource it can name.
    check.lambdaFunction.addToRolePolicy(
      new PolicyStatement({ actions: ['apigateway:GET'], resources: [`arn:${stack.partition}:apigateway:${stack.region}::/account`] }),
    );

    const provider = new Provider(this, 'Provider', {
      onEventHandler: check.lambdaFunction,
      logGroup: new LogGroup(this, 'ProviderLogs', { retention: props.logRetention, removalPolicy: props.logRemovalPolicy }),
    });
    this.resource = new CustomResource(this, 'Check', { serviceToken: provider.serviceToken, resourceType: 'Custom::ApiLoggingRole' });
  }
}
