import { describe, expect, it } from 'vitest';
import { TIER_NAMES } from '../../lambdas/core/auth/tiers';
import { type CfnResource, resourcesOfType, synthStage, wiredMethods } from './synth-stacks';

/** The API's access control in AWS: the REQUEST authorizer, usage plans per tier, keys from the authorizer. */
describe('API access', () => {
  // The API-key routes alone: the account API's (Cognito) are tested in account-api.test.ts.
  const { stateless } = synthStage('dev', undefined, { accountRoutes: [] });
  const authorizers = Object.entries(resourcesOfType(stateless, 'AWS::ApiGateway::Authorizer'));
  const [authorizerId, authorizer] = authorizers[0]!;
  const methods = Object.values(resourcesOfType(stateless, 'AWS::ApiGateway::Method')).filter(
    (m) => m.Properties?.HttpMethod !== 'OPTIONS' && m.Properties?.HttpMethod !== 'ANY',
  ); // the preflights and the 405 mocks: test/infra/cors.test.ts
  const plans = Object.values(resourcesOfType(stateless, 'AWS::ApiGateway::UsagePlan'));

  it('takes usage-plan keys from the authorizer, not from an x-api-key header', () => {
    const [api] = Object.values(resourcesOfType(stateless, 'AWS::ApiGateway::RestApi'));
    expect(api!.Properties?.ApiKeySourceType).toBe('AUTHORIZER');
  });

  it('has one REQUEST authorizer on the Authorization header, cached at most 60 s', () => {
    expect(authorizers).toHaveLength(1);
    expect(authorizer.Properties).toMatchObject({ Type: 'REQUEST', IdentitySource: 'method.request.header.Authorization', AuthorizerResultTtlInSeconds: 60 });
  });

  it('guards every data route with the authorizer and a usage-plan key; the OpenAPI document and the docs page stay public', () => {
    const routes = wiredMethods(stateless);
    expect(routes).toHaveLength(10);
    for (const method of methods) {
      const resource = JSON.stringify(method.Properties?.ResourceId);
      const route = routes.find((r) => r.integration === method.Properties?.Integration)!;
      if (/\/(openapi\.json|docs)$/.test(route.path)) {
        expect(method.Properties, resource).toMatchObject({ AuthorizationType: 'NONE', ApiKeyRequired: false });
      } else {
        expect(method.Properties, route.path).toMatchObject({ AuthorizationType: 'CUSTOM', AuthorizerId: { Ref: authorizerId }, ApiKeyRequired: true });
      }
    }
  });

  it('has one usage plan per tier on the API stage, without a quota or throttle that all its customers would share', () => {
    expect(plans).toHaveLength(TIER_NAMES.length);
    for (const tier of TIER_NAMES) {
      const plan = plans.find((p) => String(p.Properties?.UsagePlanName).endsWith(`-${tier}`))!;
      expect(plan.Properties?.Quota, tier).toBeUndefined();
      expect(plan.Properties?.Throttle, tier).toBeUndefined();
      expect((plan.Properties?.ApiStages as unknown[]).length, tier).toBe(1);
    }
  });

  it('lets the authorizer read API keys and their hash pointers, and nothing else in the table', () => {
    const fn = Object.entries(resourcesOfType(stateless, 'AWS::Lambda::Function')).find(([, f]) =>
      String(f.Properties?.Description).includes('authorize-request.ts'),
    )!;
    const role = (fn[1].Properties?.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
    const statements = Object.values(resourcesOfType(stateless, 'AWS::IAM::Policy'))
      .filter((policy: CfnResource) => JSON.stringify(policy.Properties?.Roles ?? []).includes(`"${role}"`))
      .flatMap((policy) => (policy.Properties?.PolicyDocument as { Statement: Array<Record<string, unknown>> }).Statement)
      .filter((statement) => ![statement.Action].flat().every((action) => String(action).startsWith('xray:')));
    expect(statements).toEqual([
      expect.objectContaining({
        Action: 'dynamodb:GetItem',
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['apikey#*', 'apikeyhash#*'] } },
      }),
      // The tier keys' values, read once per cold start: GET on those keys and no others.
      {
        Action: 'apigateway:GET',
        Effect: 'Allow',
        Resource: expect.toSatisfy(
          (resources: unknown[]) =>
            resources.length === TIER_NAMES.length &&
            TIER_NAMES.every((tier) =>
              resources.some(
                (r) =>
                  JSON.stringify(r) ===
                  JSON.stringify({
                    'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':apigateway:', { Ref: 'AWS::Region' }, '::/apikeys/', { Ref: tierKeyIdOf(tier) }]],
                  }),
              ),
            ),
        ),
      },
    ]);
  });

  const apiKeys = Object.entries(resourcesOfType(stateless, 'AWS::ApiGateway::ApiKey'));
  const tierKeyIdOf = (tier: string) => apiKeys.find(([, key]) => String(key.Properties?.Name).endsWith(`-dev-${tier}`))?.[0];

  it("has exactly one API key per tier, enabled, each in its own tier's usage plan and no other", () => {
    expect(apiKeys).toHaveLength(TIER_NAMES.length);
    const planKeys = Object.values(resourcesOfType(stateless, 'AWS::ApiGateway::UsagePlanKey'));
    expect(planKeys).toHaveLength(TIER_NAMES.length);
    const planIds = Object.entries(resourcesOfType(stateless, 'AWS::ApiGateway::UsagePlan'));
    for (const tier of TIER_NAMES) {
      const keyId = tierKeyIdOf(tier)!;
      expect(keyId, tier).toBeDefined();
      expect(apiKeys.find(([id]) => id === keyId)![1].Properties).toMatchObject({ Enabled: true });
      expect(apiKeys.find(([id]) => id === keyId)![1].Properties).not.toHaveProperty('Value'); // generated by API Gateway
      const planId = planIds.find(([, plan]) => String(plan.Properties?.UsagePlanName).endsWith(`-${tier}`))![0];
      const memberships = planKeys.filter((pk) => JSON.stringify(pk.Properties?.KeyId) === JSON.stringify({ Ref: keyId }));
      expect(
        memberships.map((pk) => pk.Properties),
        tier,
      ).toEqual([{ KeyId: { Ref: keyId }, KeyType: 'API_KEY', UsagePlanId: { Ref: planId } }]);
    }
  });

  it("passes the tier keys' ids, not their values, to the authorizer", () => {
    const fn = Object.values(resourcesOfType(stateless, 'AWS::Lambda::Function')).find((f) =>
      String(f.Properties?.Description).includes('authorize-request.ts'),
    )!;
    const env = (fn.Properties?.Environment as { Variables: Record<string, unknown> }).Variables;
    const ids = JSON.stringify(env.TIER_API_KEY_IDS);
    for (const tier of TIER_NAMES) expect(ids, tier).toContain(`{"Ref":"${tierKeyIdOf(tier)}"}`);
    expect(ids).not.toContain('Value');
  });

  it('leaves no function any permission to create, change or delete API keys or usage-plan keys', () => {
    const writes = /^apigateway:(\*|POST|PUT|PATCH|DELETE)$/;
    for (const [id, policy] of Object.entries(resourcesOfType(stateless, 'AWS::IAM::Policy'))) {
      for (const statement of (policy.Properties?.PolicyDocument as { Statement: Array<Record<string, unknown>> }).Statement) {
        const actions = [statement.Action].flat().map(String);
        expect(
          actions.filter((action) => writes.test(action) || action === '*'),
          id,
        ).toEqual([]);
      }
    }
  });
});
