import { type CfnResource, Fn, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Bucket } from 'aws-cdk-lib/aws-s3';

/** The stack-wide function CDK adds for `autoDeleteObjects`, and its handler (aws-cdk-lib's construct ids). */
const PROVIDER_ID = 'Custom::S3AutoDeleteObjectsCustomResourceProvider';
const LOG_GROUP_ID = 'S3AutoDeleteObjectsLogs';

/**
 * Gives the function CDK adds to empty `autoDeleteObjects` buckets a log group with a retention
 * (its /aws/lambda/<name> group, made before it first runs), once per stack: otherwise Lambda
 * creates one that is kept forever. Call it after the buckets exist.
 */
export function autoDeleteObjectsLogs(buckets: readonly Bucket[], retention: RetentionDays): LogGroup | undefined {
  const stack = Stack.of(buckets[0]!);
  const handler = stack.node.tryFindChild(PROVIDER_ID)?.node.tryFindChild('Handler') as CfnResource | undefined;
  if (!handler) return undefined;
  const logGroup =
    (stack.node.tryFindChild(LOG_GROUP_ID) as LogGroup | undefined) ??
    new LogGroup(stack, LOG_GROUP_ID, {
      logGroupName: Fn.join('', ['/aws/lambda/', handler.ref]),
      retention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
  // The custom resource runs the function on create: the group must exist first.
  for (const bucket of buckets) bucket.node.tryFindChild('AutoDeleteObjectsCustomResource')?.node.addDependency(logGroup);
  return logGroup;
}
