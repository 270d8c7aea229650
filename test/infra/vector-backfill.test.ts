import { describe, expect, it } from 'vitest';
import { referencedLogicalIds, resourcesOfType, synthStage } from './synth-stacks';

/** The scheduled backfill of vectors for records indexed during an embedding outage. */
describe('vector backfill', () => {
  const { stateless } = synthStage('dev');
  const lambdas = resourcesOfType(stateless, 'AWS::Lambda::Function');
  const [id, fn] = Object.entries(lambdas).find(([, f]) => String(f.Properties?.Description).includes('backfill-vectors.ts'))!;
  const roleId = (fn.Properties?.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
  const statements = Object.values(resourcesOfType(stateless, 'AWS::IAM::Policy'))
    .filter((policy) => JSON.stringify(policy.Properties?.Roles ?? []).includes(`"${roleId}"`))
    .flatMap((policy) => (policy.Properties?.PolicyDocument as { Statement: Array<Record<string, unknown>> }).Statement);
  const actionsOf = (filter: (s: Record<string, unknown>) => boolean) => statements.filter(filter).flatMap((s) => [s.Action].flat() as string[]);

  it('runs every 15 minutes, with no retry (the next run makes up a missed one)', () => {
    const rules = Object.values(resourcesOfType(stateless, 'AWS::Events::Rule')).filter((rule) => rule.Properties?.ScheduleExpression === 'rate(15 minutes)');
    expect(rules).toHaveLength(1);
    const targets = rules[0]!.Properties!.Targets as Array<Record<string, unknown>>;
    expect(referencedLogicalIds(targets[0]!.Arn)).toContain(id);
    expect(targets[0]!.RetryPolicy).toMatchObject({ MaximumRetryAttempts: 0 });
  });

  it('reads records, deletes backlog items only, embeds with the configured model and writes the index', () => {
    const deletes = statements.filter((s) => [s.Action].flat().includes('dynamodb:DeleteItem'));
    expect(deletes.map((s) => s.Condition)).toEqual([{ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['vector-backlog#*'] } }]);
    expect(actionsOf(() => true)).toEqual(
      expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query', 'bedrock:InvokeModel', 'es:ESHttpPost', 'es:ESHttpPut']),
    );
    expect(actionsOf(() => true)).not.toContain('dynamodb:PutItem');
    const environment = (fn.Properties?.Environment as { Variables: Record<string, unknown> }).Variables;
    expect(environment).toMatchObject({ EMBEDDING_MODEL: 'amazon.titan-embed-text-v2:0', SEARCH_INDEX_REPLICAS: '0' });
  });
});
