import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { stageConfig } from '../../lib/config';
import { STACK_OUTPUTS } from '../../lib/stack-names';
import { STATEFUL_LOGICAL_IDS, WEBHOOK_MAX_RECEIVES } from '../../lib/stateful-stack';
import { type CfnResource, referencedLogicalIds, resourcesOfType, statefulOutputReference, synthStage } from './synth-stacks';

/** Webhooks in AWS: outbox stream -> fan-out -> SQS -> sender (DLQ after the schedule), and the daily deadline scan. */
describe('webhook delivery', () => {
  const { stateful, stateless } = synthStage('dev');
  const lambdas = resourcesOfType(stateless, 'AWS::Lambda::Function');
  const policies = resourcesOfType(stateless, 'AWS::IAM::Policy');
  const mappings = Object.values(resourcesOfType(stateless, 'AWS::Lambda::EventSourceMapping'));

  function fn(entry: string): { id: string; properties: Record<string, unknown>; statements: Array<Record<string, unknown>>; actions: string[] } {
    const [id, resource] = Object.entries(lambdas).find(([, f]) => String(f.Properties?.Description).includes(entry))!;
    const roleId = (resource.Properties?.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
    const statements = Object.values(policies)
      .filter((policy: CfnResource) => JSON.stringify(policy.Properties?.Roles ?? []).includes(`"${roleId}"`))
      .flatMap((policy) => (policy.Properties?.PolicyDocument as { Statement: Array<Record<string, unknown>> }).Statement);
    return { id, properties: resource.Properties ?? {}, statements, actions: statements.flatMap((s) => [s.Action].flat() as string[]) };
  }
  const sender = fn('send-webhooks.ts');
  const fanOut = fn('fan-out-change-events.ts');
  const scanner = fn('scan-deadlines.ts');
  const mappingOf = (functionId: string) => mappings.filter((m) => referencedLogicalIds(m.Properties?.FunctionName).includes(functionId));
  const environmentOf = (properties: Record<string, unknown>) => (properties.Environment as { Variables: Record<string, unknown> }).Variables;
  /** The item prefixes (dynamodb:LeadingKeys) a function's table statements allow. */
  const leadingKeysOf = (statements: Array<Record<string, unknown>>) =>
    statements.flatMap((s) =>
      [
        (s.Condition as { 'ForAllValues:StringLike'?: { 'dynamodb:LeadingKeys': string[] } } | undefined)?.['ForAllValues:StringLike']?.[
          'dynamodb:LeadingKeys'
        ] ?? [],
      ].flat(),
    );

  it('keeps the webhook queue and its dead-letter queue in the stateful stack under pinned logical IDs, encrypted and HTTPS-only', () => {
    const queues = resourcesOfType(stateful, 'AWS::SQS::Queue');
    expect(Object.keys(queues)).toEqual(expect.arrayContaining([STATEFUL_LOGICAL_IDS.webhookQueue, STATEFUL_LOGICAL_IDS.webhookDeadLetterQueue]));
    const queue = queues[STATEFUL_LOGICAL_IDS.webhookQueue]!.Properties!;
    expect(queue).toMatchObject({
      SqsManagedSseEnabled: true,
      VisibilityTimeout: 360,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [STATEFUL_LOGICAL_IDS.webhookDeadLetterQueue, 'Arn'] }, maxReceiveCount: WEBHOOK_MAX_RECEIVES },
    });
    expect(queues[STATEFUL_LOGICAL_IDS.webhookDeadLetterQueue]!.Properties).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 86_400 });
    for (const queueId of [STATEFUL_LOGICAL_IDS.webhookQueue, STATEFUL_LOGICAL_IDS.webhookDeadLetterQueue]) {
      stateful.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: queueId }],
        PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]) },
      });
    }
    const prodQueues = resourcesOfType(synthStage('prod').stateful, 'AWS::SQS::Queue');
    expect(prodQueues[STATEFUL_LOGICAL_IDS.webhookQueue]!.DeletionPolicy).toBe('Retain');
    expect(prodQueues[STATEFUL_LOGICAL_IDS.webhookDeadLetterQueue]!.DeletionPolicy).toBe('Retain');
  });

  it('outputs both queue URLs for the admin CLI', () => {
    const outputs = stateful.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(outputs[STACK_OUTPUTS.webhookQueueUrl]?.Value).toEqual({ Ref: STATEFUL_LOGICAL_IDS.webhookQueue });
    expect(outputs[STACK_OUTPUTS.webhookDeadLetterQueueUrl]?.Value).toEqual({ Ref: STATEFUL_LOGICAL_IDS.webhookDeadLetterQueue });
  });

  it('drives the sender from the webhook queue, ten messages at a time, at most five invocations at once, with partial batch failures', () => {
    const [mapping] = mappingOf(sender.id);
    expect(mappingOf(sender.id)).toHaveLength(1);
    expect(JSON.stringify(mapping!.Properties!.EventSourceArn)).toContain(STATEFUL_LOGICAL_IDS.webhookQueue);
    expect(mapping!.Properties).toMatchObject({ BatchSize: 10, ScalingConfig: { MaximumConcurrency: 5 }, FunctionResponseTypes: ['ReportBatchItemFailures'] });
    // SQS advises a visibility timeout of six times the function's timeout.
    expect(sender.properties.Timeout).toBe(60);
  });

  it('lets the sender send to both queues and touch only subscriptions and deliveries in the table', () => {
    expect(sender.actions).toEqual(
      expect.arrayContaining(['sqs:SendMessage', 'sqs:ReceiveMessage', 'sqs:DeleteMessage', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']),
    );
    expect(leadingKeysOf(sender.statements).sort()).toEqual(['delivery#*', 'webhooks']);
    const tableStatements = sender.statements.filter((s) => ([s.Action].flat() as string[]).some((a) => a.startsWith('dynamodb:')));
    expect(tableStatements.every((s) => s.Condition !== undefined)).toBe(true);
    expect(sender.actions).not.toContain('dynamodb:Scan');
    expect(sender.actions.some((a) => a.startsWith('es:'))).toBe(false);
    const sendTargets = JSON.stringify(sender.statements.filter((s) => ([s.Action].flat() as string[]).includes('sqs:SendMessage')));
    expect(sendTargets).toContain(STATEFUL_LOGICAL_IDS.webhookQueue);
    expect(sendTargets).toContain(STATEFUL_LOGICAL_IDS.webhookDeadLetterQueue);
    expect(environmentOf(sender.properties)).toMatchObject({
      WEBHOOK_QUEUE_URL: statefulOutputReference(/RefWebhookQueue/),
      WEBHOOK_DEAD_LETTER_QUEUE_URL: statefulOutputReference(/RefWebhookDeadLetterQueue/),
      RECORDS_TABLE_NAME: statefulOutputReference(/RefRecordsTable/),
    });
  });

  it('fans out new outbox items only, from the table stream, with bisection, partial batch failures and a failure queue', () => {
    expect(mappingOf(fanOut.id)).toHaveLength(1);
    const mapping = mappingOf(fanOut.id)[0]!.Properties!;
    expect(JSON.stringify(mapping.EventSourceArn)).toContain('StreamArn');
    expect(mapping).toMatchObject({
      StartingPosition: 'TRIM_HORIZON',
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 10,
    });
    const filters = (mapping.FilterCriteria as { Filters: Array<{ Pattern: string }> }).Filters.map((f) => JSON.parse(f.Pattern));
    expect(filters).toEqual([{ eventName: ['INSERT', 'MODIFY'], dynamodb: { Keys: { sk: { S: ['event'] } } } }]);
    expect(JSON.stringify((mapping.DestinationConfig as { OnFailure: unknown }).OnFailure)).toContain(STATEFUL_LOGICAL_IDS.indexerFailureQueue);
    expect(leadingKeysOf(fanOut.statements).sort()).toEqual(['delivery#*', 'event#*', 'webhooks']);
    expect(fanOut.actions).toEqual(expect.arrayContaining(['dynamodb:GetRecords', 'sqs:SendMessage', 'dynamodb:BatchWriteItem']));
  });

  it('runs the deadline scanner daily at the configured UTC time, reading the index and writing markers', () => {
    // The other schedule is the vector backfill's (vector-backfill.test.ts).
    const rules = Object.values(resourcesOfType(stateless, 'AWS::Events::Rule')).filter((rule) =>
      String(rule.Properties?.ScheduleExpression).startsWith('cron('),
    );
    expect(rules).toHaveLength(1);
    expect(rules[0]!.Properties).toMatchObject({ ScheduleExpression: 'cron(0 6 * * ? *)', State: 'ENABLED' });
    const targets = rules[0]!.Properties!.Targets as Array<Record<string, unknown>>;
    expect(referencedLogicalIds(targets[0]!.Arn)).toContain(scanner.id);
    expect(targets[0]!.RetryPolicy).toMatchObject({ MaximumRetryAttempts: 2 });
    stateless.hasResourceProperties('AWS::Lambda::Permission', { Principal: 'events.amazonaws.com', FunctionName: { 'Fn::GetAtt': [scanner.id, 'Arn'] } });
    expect(leadingKeysOf(scanner.statements).sort()).toEqual(['deadline-sent#*', 'delivery#*', 'webhooks']);
    expect(scanner.actions).toEqual(expect.arrayContaining(['es:ESHttpGet', 'es:ESHttpPost', 'sqs:SendMessage']));
    expect(scanner.actions).not.toContain('es:ESHttpPut');
    expect(environmentOf(scanner.properties)).toMatchObject({ EMBEDDING_DIMENSIONS: '512' });

    const later = synthStage('dev', { webhooks: { deadlineScanAtUtc: '13:05' } });
    later.stateless.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'cron(5 13 * * ? *)' });
  });

  it('refuses a deadline scan time that is not HH:MM', () => {
    for (const bad of ['6:00', '24:00', '06:60', 'noon', '']) {
      expect(() => stageConfig('dev', { webhooks: { deadlineScanAtUtc: bad } }), bad).toThrow(/HH:MM/);
    }
  });
});
