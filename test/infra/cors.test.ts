import { describe, expect, it } from 'vitest';
import { API_ROUTES } from '../../lib/api-routes';
import { stageConfig } from '../../lib/config';
import { stageOverridesFromContext } from '../../lib/stage-context';
import { type CfnResource, preflightMethods, resourcesOfType, synthStage, wiredMethods } from './synth-stacks';

/**
 * CORS in the CDK app: a preflight OPTIONS method (mock integration, no authorizer) on every
 * route's resource, Access-Control-Allow-Origin on every gateway response, and the allowed
 * origins given to every API function, from the stage config (default: any origin).
 */

const EXPOSED =
  "'X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, Retry-After, Content-Disposition, X-Total-Count, X-Export-Rows, X-Export-Complete, X-Export-Next-Offset, X-Export-Next-Cursor, X-Export-Degraded'";
const ORIGINS = ['https://app.example.org', 'https://admin.example.org'];

function apiFunctionEnvironments(stateless: ReturnType<typeof synthStage>['stateless']): Map<string, Record<string, string>> {
  const functions = resourcesOfType(stateless, 'AWS::Lambda::Function');
  const byEntry = new Map<string, Record<string, string>>();
  for (const fn of Object.values(functions)) {
    const description = String(fn.Properties?.Description);
    const entry = /\((lambdas\/handlers\/[a-z-]+\.ts)\)$/.exec(description)?.[1];
    if (entry) byEntry.set(entry, (fn.Properties?.Environment as { Variables?: Record<string, string> } | undefined)?.Variables ?? {});
  }
  return byEntry;
}

function integrationResponse(method: { properties: Record<string, unknown> }) {
  const integration = method.properties.Integration as {
    Type: string;
    IntegrationResponses: { StatusCode: string; ResponseParameters: Record<string, string>; ResponseTemplates?: Record<string, string> }[];
  };
  return integration.IntegrationResponses[0]!;
}

describe('CORS with the default (any origin)', () => {
  // The API-key routes alone: the account API's are tested in account-api.test.ts.
  const { stateless } = synthStage('dev', undefined, { accountRoutes: [] });
  const preflights = preflightMethods(stateless);
  const routes = wiredMethods(stateless);

  it('has a preflight on every route resource, answered 204 by API Gateway without the authorizer', () => {
    const routePaths = [...new Set(routes.map((r) => r.path))].sort();
    expect(routePaths).toHaveLength(API_ROUTES.length);
    expect(preflights.map((p) => p.path).sort()).toEqual(routePaths);
    for (const preflight of preflights) {
      expect(preflight.properties, preflight.path).toMatchObject({ HttpMethod: 'OPTIONS', AuthorizationType: 'NONE', ApiKeyRequired: false });
      expect(preflight.properties.AuthorizerId, preflight.path).toBeUndefined();
      const response = integrationResponse(preflight);
      const methodsOfPath = routes.filter((r) => r.path === preflight.path).map((r) => r.httpMethod);
      expect(response.StatusCode).toBe('204');
      expect(response.ResponseParameters, preflight.path).toEqual({
        'method.response.header.Access-Control-Allow-Origin': "'*'",
        'method.response.header.Access-Control-Allow-Methods': `'${[...methodsOfPath, 'OPTIONS'].join(',')}'`,
        'method.response.header.Access-Control-Allow-Headers': "'Authorization,Content-Type,Accept,Accept-Language,X-Requested-With,Idempotency-Key'",
        'method.response.header.Access-Control-Max-Age': "'7200'",
      });
      expect(response.ResponseTemplates, preflight.path).toBeUndefined();
    }
    expect(preflights.find((p) => p.path === '/v1/semantic-search')!.properties.Integration).toMatchObject({ Type: 'MOCK' });
    expect(
      integrationResponse(preflights.find((p) => p.path === '/v1/semantic-search')!).ResponseParameters['method.response.header.Access-Control-Allow-Methods'],
    ).toBe("'POST,OPTIONS'");
  });

  it('answers every other method of a route resource with 405 and Allow, from a mock without the authorizer', () => {
    const refusals = preflightMethods(stateless, 'ANY');
    expect(refusals.map((p) => p.path).sort()).toEqual(preflights.map((p) => p.path).sort());
    for (const refusal of refusals) {
      expect(refusal.properties, refusal.path).toMatchObject({ HttpMethod: 'ANY', AuthorizationType: 'NONE', Integration: { Type: 'MOCK' } });
      const response = integrationResponse(refusal);
      const allow = [...routes.filter((r) => r.path === refusal.path).map((r) => r.httpMethod), 'OPTIONS'].join(', ');
      expect(response.StatusCode).toBe('405');
      expect(response.ResponseParameters, refusal.path).toMatchObject({
        'method.response.header.Allow': `'${allow}'`,
        'method.response.header.X-Request-Id': 'context.requestId',
        'method.response.header.Access-Control-Allow-Origin': "'*'",
      });
      const body = response.ResponseTemplates!['application/json']!.replaceAll('$context.httpMethod', 'DELETE').replaceAll('$context.requestId', 'r-1');
      expect(JSON.parse(body)).toEqual({
        error: { code: 'METHOD_NOT_ALLOWED', message: `DELETE is not served here; this path serves ${allow}`, request_id: 'r-1' },
      });
    }
  });

  it('puts Access-Control-Allow-Origin * on every gateway response', () => {
    const responses = Object.values(resourcesOfType(stateless, 'AWS::ApiGateway::GatewayResponse'));
    expect(responses.length).toBeGreaterThanOrEqual(11);
    for (const response of responses) {
      expect(response.Properties?.ResponseParameters, String(response.Properties?.ResponseType)).toMatchObject({
        'gatewayresponse.header.Access-Control-Allow-Origin': "'*'",
        'gatewayresponse.header.Access-Control-Expose-Headers': EXPOSED,
      });
    }
  });

  it('gives every API function the allowed origins, and no other function', () => {
    const environments = apiFunctionEnvironments(stateless);
    for (const route of API_ROUTES) expect(environments.get(route.entry)?.CORS_ALLOWED_ORIGINS, route.entry).toBe('["*"]');
    const others = [...environments].filter(([entry]) => !API_ROUTES.some((route) => route.entry === entry));
    expect(others.length).toBeGreaterThan(3);
    for (const [entry, environment] of others) expect(environment.CORS_ALLOWED_ORIGINS, entry).toBeUndefined();
  });
});

describe('CORS with a list of origins in the stage config', () => {
  const { stateless } = synthStage('prod', { api: { corsOrigins: ORIGINS } }, { accountRoutes: [] });

  it("answers the preflight with the first origin, or the request's Origin when it is another listed one, with Vary: Origin", () => {
    const preflights = preflightMethods(stateless);
    expect(preflights.length).toBe(API_ROUTES.length);
    for (const preflight of preflights) {
      const response = integrationResponse(preflight);
      expect(response.ResponseParameters['method.response.header.Access-Control-Allow-Origin']).toBe(`'${ORIGINS[0]}'`);
      expect(response.ResponseParameters['method.response.header.Vary']).toBe("'Origin'");
      const template = response.ResponseTemplates?.['application/json'] ?? '';
      expect(template).toContain(`#if($origin == "${ORIGINS[1]}")`);
      expect(template).toContain('#set($context.responseOverride.header.Access-Control-Allow-Origin = $origin)');
    }
  });

  it('names the first origin on gateway responses (they cannot choose by Origin), with Vary: Origin', () => {
    for (const response of Object.values(resourcesOfType(stateless, 'AWS::ApiGateway::GatewayResponse')) as CfnResource[]) {
      expect(response.Properties?.ResponseParameters, String(response.Properties?.ResponseType)).toMatchObject({
        'gatewayresponse.header.Access-Control-Allow-Origin': `'${ORIGINS[0]}'`,
        'gatewayresponse.header.Vary': "'Origin'",
      });
      expect(JSON.stringify(response.Properties?.ResponseParameters)).not.toContain('method.request.header.Origin');
    }
  });

  it('gives the list to every API function as a JSON array', () => {
    const environments = apiFunctionEnvironments(stateless);
    for (const route of API_ROUTES) expect(JSON.parse(environments.get(route.entry)!.CORS_ALLOWED_ORIGINS!), route.entry).toEqual(ORIGINS);
  });
});

describe('the corsOrigins setting', () => {
  it('defaults to any origin and takes a list from cdk.json', () => {
    expect(stageConfig('prod').api.corsOrigins).toEqual(['*']);
    const overrides = stageOverridesFromContext({ prod: { api: { corsOrigins: ORIGINS } } }, 'prod');
    expect(stageConfig('prod', overrides).api.corsOrigins).toEqual(ORIGINS);
  });

  it('refuses what is not an origin, naming the key', () => {
    expect(() => stageOverridesFromContext({ prod: { api: { corsOrigins: ['https://app.example.org/'] } } }, 'prod')).toThrow(
      /cdk.json context stages.prod: Api: corsOrigins: "https:\/\/app.example.org\/" is not an origin/,
    );
    expect(() => stageOverridesFromContext({ prod: { api: { corsOrigins: ['*', 'https://a.example'] } } }, 'prod')).toThrow(/cannot be combined/);
    expect(() => stageOverridesFromContext({ prod: { api: { corsOrigins: 'https://a.example' } } }, 'prod')).toThrow(/stages.prod.api.corsOrigins/);
    expect(() => stageConfig('prod', { api: { corsOrigins: [] } })).toThrow(/list at least one origin/);
  });
});
