import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { CANARY_ENV } from '../../lambdas/canary/canary-env';
import { stageConfig } from '../../lib/config';
import { CANARY_SUCCESS_THRESHOLD_PERCENT, CANARY_WIDGET_TITLE, canaryNameOf } from '../../lib/constructs/api-canary';
import { dashboardWidgets, metricLines } from './cloudwatch-templates';
import { referencedLogicalIds, resourcesOfType, synthStage } from './synth-stacks';

const only = (resources: Record<string, unknown>) => {
  const entries = Object.entries(resources);
  expect(entries).toHaveLength(1);
  return entries[0]! as [string, { Properties: Record<string, any>; DeletionPolicy?: string }];
};

describe('the synthetic API canary', () => {
  const prod = synthStage('prod');
  const dev = synthStage('dev');
  const template = prod.stateless;
  const [canaryId, canary] = only(template.findResources('AWS::Synthetics::Canary'));
  const logicalIdOf = (type: string, pathPart: string) =>
    Object.keys(template.findResources(type)).filter((id) => id.startsWith(pathPart)) as [string, ...string[]];

  it('runs the bundled check on a browserless Node.js runtime, every 5 minutes, named after the stage', () => {
    expect(canary.Properties).toMatchObject({
      Name: 'gcf-prod-api',
      RuntimeVersion: 'syn-nodejs-3.1',
      Code: { Handler: 'api-canary.handler' },
      Schedule: { Expression: 'rate(5 minutes)' },
      StartCanaryAfterCreation: true,
      RunConfig: { TimeoutInSeconds: 60 },
      SuccessRetentionPeriod: 30,
      FailureRetentionPeriod: 30,
    });
    expect(only(dev.stateless.findResources('AWS::Synthetics::Canary'))[1].Properties.Name).toBe('gcf-dev-api');
  });

  it('takes its schedule and search term from the stage config', () => {
    const custom = synthStage('dev', { canary: { scheduleMinutes: 1, searchTerm: 'water' } }).stateless;
    custom.hasResourceProperties('AWS::Synthetics::Canary', {
      Schedule: { Expression: 'rate(1 minute)' },
      RunConfig: { EnvironmentVariables: Match.objectLike({ [CANARY_ENV.searchTerm]: 'water' }) },
    });
  });

  it("calls the stage's own base URL (the REST API's stage and /v1) and names its key's secret, never a key", () => {
    const env = canary.Properties.RunConfig.EnvironmentVariables as Record<string, unknown>;
    expect(Object.keys(env).sort()).toEqual(Object.values(CANARY_ENV).sort());
    const [restApiId] = logicalIdOf('AWS::ApiGateway::RestApi', 'ApiRestApi');
    const [stageId] = logicalIdOf('AWS::ApiGateway::Stage', 'ApiRestApiDeploymentStage');
    expect(referencedLogicalIds(env[CANARY_ENV.apiBaseUrl])).toEqual(expect.arrayContaining([restApiId, stageId]));
    expect(JSON.stringify(env[CANARY_ENV.apiBaseUrl])).toMatch(/"\/v1"\]\]\}$/);
    const [secretId] = logicalIdOf('AWS::SecretsManager::Secret', 'ApiCanaryKeySecret');
    expect(env[CANARY_ENV.keySecretArn]).toEqual({ Ref: secretId });
    expect(env[CANARY_ENV.searchTerm]).toBe('research');
  });

  it('creates the key secret empty ({}), until admin canary provision fills it', () => {
    template.hasResourceProperties('AWS::SecretsManager::Secret', { SecretString: '{}', Description: Match.stringLikeRegexp('gcf-prod-api') });
  });

  it("grants the secret's read to the canary's role only, a role scoped to its own bucket and log group", () => {
    const [secretId] = logicalIdOf('AWS::SecretsManager::Secret', 'ApiCanaryKeySecret');
    const [roleId] = logicalIdOf('AWS::IAM::Role', 'ApiCanaryServiceRole');
    expect(canary.Properties.ExecutionRoleArn).toEqual({ 'Fn::GetAtt': [roleId, 'Arn'] });
    const readers = Object.values(resourcesOfType(template, 'AWS::IAM::Policy')).filter((policy) =>
      referencedLogicalIds(policy.Properties?.PolicyDocument).includes(secretId),
    );
    expect(readers).toHaveLength(1);
    expect(referencedLogicalIds(readers[0]!.Properties?.Roles)).toEqual([roleId]);
    const statements = (readers[0]!.Properties?.PolicyDocument as { Statement: Array<{ Action: string | string[]; Resource: unknown }> }).Statement;
    expect(statements.find((s) => referencedLogicalIds(s.Resource).includes(secretId))?.Action).toEqual([
      'secretsmanager:DescribeSecret',
      'secretsmanager:GetSecretValue',
    ]);
    const logs = statements.find((s) => Array.isArray(s.Action) && s.Action.includes('logs:PutLogEvents'))!;
    expect(JSON.stringify(logs.Resource)).toContain(':log-group:/aws/lambda/cwsyn-gcf-prod-api-*');
    const metrics = statements.find((s) => s.Action === 'cloudwatch:PutMetricData') as unknown as { Condition: unknown };
    expect(metrics.Condition).toEqual({ StringEquals: { 'cloudwatch:namespace': 'CloudWatchSynthetics' } });
    // No secret reader elsewhere in either stack.
    for (const policy of Object.values(resourcesOfType(prod.stateful, 'AWS::IAM::Policy'))) {
      expect(JSON.stringify(policy)).not.toContain('ApiCanaryKeySecret');
    }
  });

  it('pages when its success rate is below 90% in 2 of 3 five-minute periods, treating silence as failure', () => {
    const [pageTopicId] = logicalIdOf('AWS::SNS::Topic', 'AlarmsTopic');
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'gcf-data-service-prod-api-canary',
      Namespace: 'CloudWatchSynthetics',
      MetricName: 'SuccessPercent',
      Dimensions: [{ Name: 'CanaryName', Value: { Ref: canaryId } }],
      Statistic: 'Average',
      Period: 300,
      Threshold: CANARY_SUCCESS_THRESHOLD_PERCENT,
      ComparisonOperator: 'LessThanThreshold',
      EvaluationPeriods: 3,
      DatapointsToAlarm: 2,
      TreatMissingData: 'breaching',
      AlarmActions: [{ Ref: pageTopicId }],
      OKActions: [{ Ref: pageTopicId }],
      AlarmDescription: Match.stringLikeRegexp('Runbook: docs/runbook.md#api-canary$'),
    });
    expect(pageTopicId).not.toMatch(/Ticket/);
  });

  it("has a dashboard widget, the one its alarm names, with the success rate and the alarm's line", () => {
    const widgets = dashboardWidgets(template).filter((w) => w.properties.title === CANARY_WIDGET_TITLE);
    expect(widgets).toHaveLength(1);
    const lines = metricLines(widgets[0]!);
    expect(lines.map((l) => [l.namespace, l.metricName, l.dimensions])).toEqual([
      ['CloudWatchSynthetics', 'SuccessPercent', { CanaryName: `<Ref:${canaryId}>` }],
      ['CloudWatchSynthetics', 'Duration', { CanaryName: `<Ref:${canaryId}>` }],
    ]);
    expect(widgets[0]!.properties.annotations).toEqual({ horizontal: [{ value: CANARY_SUCCESS_THRESHOLD_PERCENT, label: 'alarm', yAxis: 'left' }] });
  });

  it('never alarms on a period shorter than the schedule', () => {
    synthStage('dev', { canary: { scheduleMinutes: 15 } }).stateless.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'SuccessPercent',
      Period: 900,
    });
  });

  it('keeps artifacts in an encrypted, TLS-only, private bucket that expires them and logs its access; retained on prod, deleted on dev', () => {
    const [artifactsId, artifacts] = only(
      Object.fromEntries(
        Object.entries(template.findResources('AWS::S3::Bucket', { Properties: { LoggingConfiguration: Match.anyValue() } })).filter(([id]) =>
          id.startsWith('ApiCanary'),
        ),
      ),
    );
    expect(canary.Properties.ArtifactS3Location).toEqual({ 'Fn::Join': ['', ['s3://', { Ref: artifactsId }]] });
    const [logsId] = logicalIdOf('AWS::S3::Bucket', 'ApiCanaryAccessLogs');
    for (const id of [artifactsId, logsId]) {
      const bucket = template.toJSON().Resources[id];
      expect(bucket.Properties).toMatchObject({
        BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
        PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
        LifecycleConfiguration: { Rules: [{ ExpirationInDays: 30, Status: 'Enabled' }] },
      });
      expect(bucket.DeletionPolicy, id).toBe('Retain');
      template.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: id },
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } }, Principal: { AWS: '*' } }),
          ]),
        },
      });
    }
    expect(artifacts.Properties.LoggingConfiguration).toEqual({ DestinationBucketName: { Ref: logsId }, LogFilePrefix: 'artifacts/' });
    const devBuckets = Object.entries(dev.stateless.findResources('AWS::S3::Bucket'))
      .filter(([id]) => id.startsWith('ApiCanary'))
      .map(([, bucket]) => bucket) as Array<{ DeletionPolicy?: string }>;
    expect(devBuckets.map((b) => b.DeletionPolicy)).toEqual(['Delete', 'Delete']);
    expect(template.findResources('Custom::S3AutoDeleteObjects')).toEqual({});
  });

  it('empties the dev buckets before deleting them, with a function whose log group has a retention and exists before it runs', () => {
    // One emptying function for the stack; one custom resource per bucket: the canary's two, the docs assets' two.
    const emptiers = Object.values(dev.stateless.findResources('Custom::S3AutoDeleteObjects')) as Array<{ DependsOn?: string[] }>;
    expect(emptiers).toHaveLength(4);
    const [logGroupId, logGroup] = only(
      dev.stateless.findResources('AWS::Logs::LogGroup', { Properties: { LogGroupName: { 'Fn::Join': ['', ['/aws/lambda/', Match.anyValue()]] } } }),
    );
    expect(referencedLogicalIds(logGroup.Properties.LogGroupName)).toEqual([expect.stringMatching(/^CustomS3AutoDeleteObjectsCustomResourceProviderHandler/)]);
    expect(logGroup.Properties.RetentionInDays).toBe(7);
    for (const emptier of emptiers) expect(emptier.DependsOn).toContain(logGroupId);
  });
});

describe('the canary settings', () => {
  it('refuse a schedule outside 1-60 minutes and an empty search term', () => {
    expect(() => stageConfig('dev', { canary: { scheduleMinutes: 0 } })).toThrow(/scheduleMinutes must be a whole number of minutes from 1 to 60/);
    expect(() => stageConfig('dev', { canary: { scheduleMinutes: 2.5 } })).toThrow(/scheduleMinutes/);
    expect(() => stageConfig('dev', { canary: { searchTerm: ' ' } })).toThrow(/searchTerm/);
  });

  it("refuse a schedule whose requests would exceed the canary key's tier quota", () => {
    expect(() => stageConfig('dev', { canary: { scheduleMinutes: 1 }, tierQuotas: { pro: { dailyQuota: 1000, throttle: null } } })).toThrow(
      /2880 requests a day, over the pro tier's daily quota of 1000/,
    );
    expect(stageConfig('dev', { canary: { scheduleMinutes: 3 }, tierQuotas: { pro: { dailyQuota: 1000, throttle: null } } }).canary.scheduleMinutes).toBe(3);
  });

  it('name a canary in at most 21 characters, shortening long stage names with a hash', () => {
    expect(canaryNameOf('gcf-prod')).toBe('gcf-prod-api');
    const long = canaryNameOf('gcf-dev-a-very-long-name1');
    expect(long.length).toBeLessThanOrEqual(21);
    expect(long).toMatch(/^gcf-dev-a-very-[0-9a-f]{6}$/);
    expect(canaryNameOf('gcf-dev-a-very-long-name2')).not.toBe(long);
  });
});
