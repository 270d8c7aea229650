import { describe, expect, it } from 'vitest';
import { STATEFUL_LOGICAL_IDS } from '../../lib/stateful-stack';
import { type CfnResource, referencedLogicalIds, resourcesOfType, synthStage } from './synth-stacks';

/** The change feed in AWS: table stream -> indexer Lambda -> search domain + outbox, failures to a queue. */
describe('record indexer', () => {
  const { stateful, stateless } = synthStage('dev');
  const lambdas = resourcesOfType(stateless, 'AWS::Lambda::Function');
  const [indexerId, indexer] = Object.entries(lambdas).find(([, fn]) => String(fn.Properties?.Description).includes('index-record-changes.ts'))!;
  // The indexer's own mapping (the webhook fan-out reads the same stream; test/infra/webhook-delivery.test.ts).
  const mappings = Object.values(resourcesOfType(stateless, 'AWS::Lambda::EventSourceMapping')).filter((mapping) =>
    referencedLogicalIds(mapping.Properties?.FunctionName).includes(indexerId),
  );
  const roleId = (indexer.Properties?.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
  const statements = Object.values(resourcesOfType(stateless, 'AWS::IAM::Policy'))
    .filter((policy: CfnResource) => JSON.stringify(policy.Properties?.Roles ?? []).includes(`"${roleId}"`))
    .flatMap((policy) => (policy.Properties?.PolicyDocument as { Statement: Array<Record<string, unknown>> }).Statement);
  const actions = statements.flatMap((statement) => [statement.Action].flat() as string[]);

  it('reads the records table stream from the start with partial batch responses and bisection', () => {
    expect(mappings).toHaveLength(1);
    const mapping = mappings[0]!.Properties!;
    expect(referencedLogicalIds(mapping.FunctionName)).toContain(indexerId);
    expect(JSON.stringify(mapping.EventSourceArn)).toContain(STATEFUL_LOGICAL_IDS.recordsTable);
    expect(JSON.stringify(mapping.EventSourceArn)).toContain('StreamArn');
    expect(mapping).toMatchObject({
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: 100,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 10,
      MaximumRecordAgeInSeconds: 86_400,
    });
  });

  it('only receives record items, never its own change events', () => {
    const filters = (mappings[0]!.Properties!.FilterCriteria as { Filters: Array<{ Pattern: string }> }).Filters;
    expect(filters.map((filter) => JSON.parse(filter.Pattern))).toEqual([{ dynamodb: { Keys: { sk: { S: ['record'] } } } }]);
  });

  it('sends batches that still fail to the encrypted failure queue in the stateful stack', () => {
    const destination = (mappings[0]!.Properties!.DestinationConfig as { OnFailure: { Destination: unknown } }).OnFailure.Destination;
    expect(JSON.stringify(destination)).toContain(STATEFUL_LOGICAL_IDS.indexerFailureQueue);
    const queues = resourcesOfType(stateful, 'AWS::SQS::Queue');
    expect(Object.keys(queues)).toContain(STATEFUL_LOGICAL_IDS.indexerFailureQueue);
    expect(queues[STATEFUL_LOGICAL_IDS.indexerFailureQueue]!.Properties).toMatchObject({ MessageRetentionPeriod: 14 * 86_400, SqsManagedSseEnabled: true });
    const queuePolicy = JSON.stringify(resourcesOfType(stateful, 'AWS::SQS::QueuePolicy'));
    expect(queuePolicy).toContain('aws:SecureTransport');
    expect(actions).toContain('sqs:SendMessage');
  });

  it('may read the stream, write table items and write the index, and read no table items', () => {
    expect(actions).toEqual(
      expect.arrayContaining([
        'dynamodb:GetRecords',
        'dynamodb:GetShardIterator',
        'dynamodb:BatchWriteItem',
        'dynamodb:PutItem',
        'es:ESHttpPost',
        'es:ESHttpPut',
      ]),
    );
    expect(actions).not.toContain('dynamodb:Scan');
    expect(actions).not.toContain('dynamodb:Query');
    const environment = (indexer.Properties?.Environment as { Variables: Record<string, unknown> }).Variables;
    expect(environment.RECORDS_TABLE_NAME).toBeDefined();
    expect(environment.SEARCH_DOMAIN_ENDPOINT).toBeDefined();
  });

  it('keeps the failure queue when a durable stage is deleted', () => {
    const queue = resourcesOfType(synthStage('prod').stateful, 'AWS::SQS::Queue')[STATEFUL_LOGICAL_IDS.indexerFailureQueue]!;
    expect(queue.DeletionPolicy).toBe('Retain');
  });
});
