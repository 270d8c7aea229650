import { describe, expect, it } from 'vitest';
import { ACCOUNT_ROUTES } from '../../lib/api-routes';
import { type CfnResource, preflightMethods, resourcesOfType, synthStage, wiredMethods } from './synth-stacks';

type Statement = { Effect: string; Action: string | string[]; Resource: unknown; Condition?: Record<string, Record<string, string[]>> };
type Json = Record<string, unknown>;

/** The account API on AWS (issue 43 item 3): one function behind the Cognito authorizer, reaching only its items. */
describe('the account API in the stateless stack', () => {
  const { stateless } = synthStage('prod');
  const lambdas = resourcesOfType(stateless, 'AWS::Lambda::Function');
  const accountFunctions = Object.entries(lambdas).filter(([, fn]) => String(fn.Properties?.Description).endsWith('(lambdas/handlers/account-api.ts)'));

  it('serves GET /account and GET, POST and PATCH /account/{proxy+} from one function, each behind the Cognito authorizer without an API key', () => {
    expect(accountFunctions).toHaveLength(1);
    const [functionId] = accountFunctions[0]!;
    const methods = wiredMethods(stateless).filter((method) => method.path.startsWith('/v1/account'));
    expect(methods.map((m) => `${m.httpMethod} ${m.path}`).sort()).toEqual([
      'GET /v1/account',
      'GET /v1/account/{proxy+}',
      'PATCH /v1/account/{proxy+}',
      'POST /v1/account/{proxy+}',
    ]);
    expect(new Set(methods.map((m) => m.functionLogicalId))).toEqual(new Set([functionId]));
    const cognito = Object.entries(resourcesOfType(stateless, 'AWS::ApiGateway::Authorizer')).filter(([, a]) => a.Properties?.Type === 'COGNITO_USER_POOLS');
    expect(cognito).toHaveLength(1);
    for (const method of Object.values(resourcesOfType(stateless, 'AWS::ApiGateway::Method'))) {
      const uri = JSON.stringify((method.Properties?.Integration as Json | undefined)?.Uri ?? '');
      if (!uri.includes(functionId)) continue;
      expect(method.Properties).toMatchObject({ AuthorizationType: 'COGNITO_USER_POOLS', AuthorizerId: { Ref: cognito[0]![0] }, ApiKeyRequired: false });
    }
  });

  it('answers the CORS preflight of both resources without the authorizer', () => {
    const paths = preflightMethods(stateless).map((p) => p.path);
    expect(paths).toEqual(expect.arrayContaining(['/v1/account', '/v1/account/{proxy+}']));
  });

  it("gives the function the table, the stage's quotas and the token's issuer and audience, and nothing of search", () => {
    const variables = (accountFunctions[0]![1].Properties!.Environment as { Variables: Json }).Variables;
    expect(Object.keys(variables)).toEqual(
      expect.arrayContaining(['RECORDS_TABLE_NAME', 'TIER_QUOTAS', 'ACCOUNT_TOKEN_ISSUER', 'ACCOUNT_TOKEN_AUDIENCE', 'CORS_ALLOWED_ORIGINS']),
    );
    expect(Object.keys(variables).filter((name) => /SEARCH|EMBEDDING|CURSOR_KEY|WEBHOOK/.test(name))).toEqual([]);
    expect(JSON.parse(String(variables.TIER_QUOTAS))).toHaveProperty('basic');
  });

  it('reaches only account, key, usage, request-log and subscription items, each with the fewest actions, and no KMS or queue', () => {
    const role = (accountFunctions[0]![1].Properties!.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
    const statements = Object.values(resourcesOfType(stateless, 'AWS::IAM::Policy'))
      .filter((policy: CfnResource) => JSON.stringify(policy.Properties?.Roles ?? []).includes(`"${role}"`))
      .flatMap((policy) => (policy.Properties!.PolicyDocument as { Statement: Statement[] }).Statement)
      .filter((s) => [s.Action].flat().some((a) => a.startsWith('dynamodb:')));
    const grants = statements.map((s) => ({
      actions: [s.Action].flat().sort(),
      keys: s.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'],
    }));
    expect(grants).toEqual([
      { actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:UpdateItem'], keys: ['account#*', 'accountowner#*', 'accounts'] },
      { actions: ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'], keys: ['apikey#*', 'apikeyhash#*', 'apikeyidem#*'] },
      { actions: ['dynamodb:DeleteItem'], keys: ['apikeyhash#*'] },
      { actions: ['dynamodb:GetItem', 'dynamodb:Query'], keys: ['usage#*'] },
      { actions: ['dynamodb:Query'], keys: ['reqlog#*'] },
      { actions: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem'], keys: ['webhooks'] },
    ]);
    expect(statements.every((s) => s.Effect === 'Allow' && !JSON.stringify(s.Action).includes('Scan'))).toBe(true);
    const kms = Object.values(resourcesOfType(stateless, 'AWS::IAM::Policy'))
      .filter((policy: CfnResource) => JSON.stringify(policy.Properties?.Roles ?? []).includes(`"${role}"`))
      .flatMap((policy) => (policy.Properties!.PolicyDocument as { Statement: Statement[] }).Statement)
      .filter((s) => [s.Action].flat().some((a) => a.startsWith('kms:') || a.startsWith('sqs:')));
    expect(kms).toEqual([]);
  });

  it('declares its routes under /account, all on the one handler', () => {
    expect(new Set(ACCOUNT_ROUTES.map((route) => route.entry))).toEqual(new Set(['lambdas/handlers/account-api.ts']));
    expect(ACCOUNT_ROUTES.every((route) => route.path === '/account' || route.path.startsWith('/account/'))).toBe(true);
  });
});

describe('sharing a function between routes', () => {
  it('is refused unless both are account routes with the same bindings', () => {
    const ownEntry = { method: 'GET', path: '/account', entry: 'lambdas/handlers/get-grant.ts', bindings: ['records', 'usage'] } as const;
    expect(() => synthStage('dev', undefined, { accountRoutes: [ownEntry] })).toThrow('Two routes share the handler name GetGrant');
    const route = { method: 'GET', path: '/account', entry: 'lambdas/handlers/account-api.ts', bindings: ['accounts'] } as const;
    expect(() => synthStage('dev', undefined, { accountRoutes: [route, { ...route, path: '/account/{proxy+}', bindings: [] }] })).toThrow(
      'Two routes share the handler name AccountApi',
    );
  });
});
