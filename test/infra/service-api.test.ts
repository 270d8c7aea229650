import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { resourcesOfType, synthStage, wiredMethods } from './synth-stacks';

const EXPECTED_ROUTES: Record<string, string> = {
  'GET /v1/grants-api': 'lambdas/handlers/list-grants.ts',
  'GET /v1/grants-api/{id}': 'lambdas/handlers/get-grant.ts',
  'GET /v1/contracts-api': 'lambdas/handlers/list-contracts.ts',
  'GET /v1/contracts-api/{id}': 'lambdas/handlers/get-contract.ts',
  'GET /v1/funders-api': 'lambdas/handlers/list-funders.ts',
  'GET /v1/funders-api/{id}': 'lambdas/handlers/get-funder.ts',
  'POST /v1/semantic-search': 'lambdas/handlers/semantic-search.ts',
  'POST /v1/match-grants-api': 'lambdas/handlers/match-grants.ts',
  'GET /v1/openapi.json': 'lambdas/handlers/openapi.ts',
  'GET /v1/docs': 'lambdas/handlers/docs-page.ts',
};

describe('service API', () => {
  // The API-key routes alone (one function each): the account API's share one, tested in account-api.test.ts.
  const { stacks, stateless } = synthStage('dev', undefined, { accountRoutes: [] });
  const lambdas = resourcesOfType(stateless, 'AWS::Lambda::Function');
  const methods = wiredMethods(stateless);

  it('is named Gcf-<stage>-Stateless', () => {
    expect(stacks.stateless.stackName).toBe('Gcf-dev-Stateless');
  });

  it('deploys to the stage "functions" with tracing, metrics and JSON access logs without secrets', () => {
    stateless.resourceCountIs('AWS::ApiGateway::Stage', 1);
    stateless.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'functions',
      TracingEnabled: true,
      MethodSettings: Match.arrayWith([Match.objectLike({ MetricsEnabled: true, HttpMethod: '*', ResourcePath: '/*' })]),
      AccessLogSetting: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('"requestId":"\\$context.requestId"') },
    });
    const stage = Object.values(resourcesOfType(stateless, 'AWS::ApiGateway::Stage'))[0];
    const format = String((stage?.Properties?.AccessLogSetting as { Format: string }).Format);
    expect(() => JSON.parse(format)).not.toThrow();
    expect(format).not.toMatch(/authorization|apiKey|\$context\.authorizer/i);
  });

  it('routes each path to its own function', () => {
    const routes = Object.fromEntries(
      methods.map((method) => [`${method.httpMethod} ${method.path}`, String(lambdas[method.functionLogicalId]?.Properties?.Description)]),
    );
    expect(Object.keys(routes).sort()).toEqual(Object.keys(EXPECTED_ROUTES).sort());
    for (const [route, entry] of Object.entries(EXPECTED_ROUTES)) {
      expect(routes[route], route).toBe(`${route} (${entry})`);
    }
    expect(new Set(methods.map((method) => method.functionLogicalId)).size).toBe(10);
  });

  it('uses Lambda proxy integrations', () => {
    for (const method of methods) {
      expect(method.integration.Type, method.path).toBe('AWS_PROXY');
      expect(method.integration.IntegrationHttpMethod, method.path).toBe('POST');
    }
  });

  it('lets API Gateway invoke each function only through its own method', () => {
    const authorizerFunction = Object.entries(resourcesOfType(stateless, 'AWS::Lambda::Function')).find(([, fn]) =>
      String(fn.Properties?.Description).includes('authorize-request.ts'),
    )![0];
    // One per route, and one for API Gateway to call the authorizer.
    const permissions = Object.values(resourcesOfType(stateless, 'AWS::Lambda::Permission'))
      .filter((p) => p.Properties?.Principal === 'apigateway.amazonaws.com')
      .filter((p) => !JSON.stringify(p.Properties?.FunctionName).includes(`"${authorizerFunction}"`));
    expect(permissions).toHaveLength(10);
    for (const method of methods) {
      const permission = permissions.filter((p) => JSON.stringify(p.Properties?.FunctionName).includes(`"${method.functionLogicalId}"`));
      expect(permission, method.path).toHaveLength(1);
      expect(JSON.stringify(permission[0]?.Properties?.SourceArn), method.path).toContain(`/${method.httpMethod}${method.path.replace('{id}', '*')}"`);
    }
  });

  it('answers gateway errors in the service error shape', () => {
    const expected: Record<string, { status?: string; code: string }> = {
      DEFAULT_4XX: { code: 'INVALID_PARAMETER' },
      DEFAULT_5XX: { code: 'INTERNAL' },
      INTEGRATION_FAILURE: { status: '503', code: 'SEARCH_UNAVAILABLE' },
      UNAUTHORIZED: { status: '401', code: 'UNAUTHORIZED' },
      ACCESS_DENIED: { status: '403', code: 'FORBIDDEN' },
      THROTTLED: { status: '429', code: 'RATE_LIMITED' },
      QUOTA_EXCEEDED: { status: '429', code: 'RATE_LIMITED' },
      BAD_REQUEST_PARAMETERS: { status: '400', code: 'INVALID_PARAMETER' },
      MISSING_AUTHENTICATION_TOKEN: { status: '404', code: 'NOT_FOUND' },
    };
    const responses = Object.fromEntries(
      Object.values(resourcesOfType(stateless, 'AWS::ApiGateway::GatewayResponse')).map((r) => [String(r.Properties?.ResponseType), r.Properties ?? {}]),
    );
    for (const [type, { status, code }] of Object.entries(expected)) {
      const response = responses[type];
      expect(response, type).toBeDefined();
      expect(response?.StatusCode, type).toBe(status);
      expect(response?.ResponseParameters, type).toEqual({
        'gatewayresponse.header.Content-Type': "'application/json'",
        'gatewayresponse.header.Access-Control-Allow-Origin': "'*'",
        'gatewayresponse.header.Access-Control-Expose-Headers':
          "'X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, Retry-After, Content-Disposition, X-Total-Count, X-Export-Rows, X-Export-Complete, X-Export-Next-Offset, X-Export-Next-Cursor, X-Export-Degraded'",
      });
      const template = (response?.ResponseTemplates as Record<string, string>)['application/json'] ?? '';
      // Substitute the mapping-template variables to check the body is JSON of the right shape.
      const body = JSON.parse(template.replace('$context.error.messageString', '"Some message"').replaceAll('$context.requestId', 'abc'));
      expect(body, type).toEqual({ error: { code, message: expect.any(String), request_id: 'abc' } });
      expect(body.error.message.length, type).toBeGreaterThan(0);
    }
    // A 5xx must never echo API Gateway's (possibly internal) error message.
    for (const type of ['DEFAULT_5XX', 'INTEGRATION_FAILURE']) expect(JSON.stringify(responses[type]?.ResponseTemplates), type).not.toContain('error.message');
  });

  it('outputs the base URL ending in /functions/v1', () => {
    const output = stateless.findOutputs('ApiBaseUrl').ApiBaseUrl as { Value: unknown } | undefined;
    expect(output).toBeDefined();
    const value = JSON.stringify(output?.Value);
    expect(value).toMatch(
      /^\{"Fn::Join":\["",\["https:\/\/",\{"Ref":"ApiRestApi[0-9A-F]+"\},".execute-api.",\{"Ref":"AWS::Region"\},".",\{"Ref":"AWS::URLSuffix"\},"\/",\{"Ref":"ApiRestApiDeploymentStagefunctions[0-9A-F]+"\},"\/v1"\]\]\}$/,
    );
  });
});
