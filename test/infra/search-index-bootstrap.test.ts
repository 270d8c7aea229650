import { describe, expect, it } from 'vitest';
import { MAPPING_VERSION } from '../../lambdas/adapters/aws/opensearch-mappings';
import { stageConfig } from '../../lib/config';
import { type CfnResource, resourcesOfType, synthStage } from './synth-stacks';

function statementsOf(template: ReturnType<typeof synthStage>['stateless'], functionId: string, lambdas: Record<string, CfnResource>) {
  const roleId = (lambdas[functionId]!.Properties?.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
  return Object.values(resourcesOfType(template, 'AWS::IAM::Policy'))
    .filter((policy) => JSON.stringify(policy.Properties?.Roles ?? []).includes(`"${roleId}"`))
    .flatMap((policy) => (policy.Properties?.PolicyDocument as { Statement: Array<Record<string, unknown>> }).Statement);
}

/** Vector search in AWS: the deploy-time index bootstrap, and the embeddings the indexer and the search routes use. */
describe('search index bootstrap and embeddings', () => {
  const { stateless } = synthStage('dev', { embeddings: { dimensions: 1024, semanticFloor: 0.35 } });
  const lambdas = resourcesOfType(stateless, 'AWS::Lambda::Function');
  const idOf = (entry: string) => Object.entries(lambdas).find(([, fn]) => String(fn.Properties?.Description).includes(entry))![0];
  const resources = Object.entries(resourcesOfType(stateless, 'Custom::SearchIndices'));

  it('creates the indices through a custom resource carrying the configured vector space', () => {
    expect(resources).toHaveLength(1);
    const [, resource] = resources[0]!;
    expect(resource.Properties).toMatchObject({
      Embedder: 'bedrock:amazon.titan-embed-text-v2:0',
      Dimensions: '1024',
      MappingVersion: String(MAPPING_VERSION),
    });
    const bootstrap = lambdas[idOf('bootstrap-search-index.ts')]!;
    expect(JSON.stringify(bootstrap.Properties?.Environment)).toContain('SEARCH_DOMAIN_ENDPOINT');
    const actions = statementsOf(stateless, idOf('bootstrap-search-index.ts'), lambdas).flatMap((s) => [s.Action].flat() as string[]);
    expect(actions).toEqual(expect.arrayContaining(['es:ESHttpPut', 'es:ESHttpHead', 'es:ESHttpGet']));
    expect(actions.some((action) => action.startsWith('bedrock:') || action.startsWith('dynamodb:'))).toBe(false);
  });

  it('deploys the indexer and every search route only after the bootstrap has checked the indices', () => {
    const [resourceId] = resources[0]!;
    for (const entry of ['index-record-changes.ts', 'list-grants.ts', 'list-contracts.ts', 'list-funders.ts', 'semantic-search.ts']) {
      expect(lambdas[idOf(entry)]!.DependsOn, entry).toEqual(expect.arrayContaining([resourceId]));
    }
    expect(lambdas[idOf('get-grant.ts')]!.DependsOn ?? []).not.toContain(resourceId);
  });

  it('passes the model, dimensions and floor to the search routes and the indexer', () => {
    for (const entry of ['list-grants.ts', 'semantic-search.ts', 'index-record-changes.ts']) {
      expect((lambdas[idOf(entry)]!.Properties?.Environment as { Variables: Record<string, unknown> }).Variables, entry).toMatchObject({
        EMBEDDING_MODEL: 'amazon.titan-embed-text-v2:0',
        EMBEDDING_DIMENSIONS: '1024',
        SEMANTIC_FLOOR: '0.35',
      });
    }
  });

  it('lets the indexer invoke the model and read and write embedding items only among its extra grants', () => {
    const statements = statementsOf(stateless, idOf('index-record-changes.ts'), lambdas);
    const bedrock = statements.filter((s) => [s.Action].flat().includes('bedrock:InvokeModel'));
    expect(bedrock).toHaveLength(1);
    expect(JSON.stringify(bedrock[0]!.Resource)).toContain('::foundation-model/amazon.titan-embed-text-v2:0');
    const cache = statements.filter((s) => JSON.stringify(s.Condition ?? {}).includes('embedding#*'));
    expect(cache).toHaveLength(1);
    expect([cache[0]!.Action].flat().sort()).toEqual(['dynamodb:BatchGetItem', 'dynamodb:BatchWriteItem']);
    expect(JSON.stringify(cache[0]!.Resource)).toContain('RecordsTable');
  });

  it('outputs the model and dimensions for the admin CLI', () => {
    const outputs = stateless.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(outputs.EmbeddingModel?.Value).toBe('amazon.titan-embed-text-v2:0');
    expect(outputs.EmbeddingDimensions?.Value).toBe('1024');
  });

  it('refuses dimensions Titan V2 does not make and floors outside [0, 1)', () => {
    expect(stageConfig('dev').embeddings).toEqual({ model: 'amazon.titan-embed-text-v2:0', dimensions: 512 });
    expect(() => stageConfig('dev', { embeddings: { dimensions: 768 as 512 } })).toThrow(/256, 512 or 1024/);
    expect(() => stageConfig('dev', { embeddings: { semanticFloor: 1 } })).toThrow(/\[0, 1\)/);
  });
});
