import { describe, expect, it } from 'vitest';
import { type CfnResource, resourcesOfType, statefulOutputReference, synthStage } from './synth-stacks';

const ENTRY_IN_DESCRIPTION = /\((lambdas\/handlers\/[a-z-]+\.ts)\)$/;

/** Our route functions keyed by handler entry (the description ends with it), each with its logical ID. */
function routeFunctions(resources: Record<string, CfnResource>): Map<string, { logicalId: string; properties: Record<string, unknown> }> {
  const byEntry = new Map<string, { logicalId: string; properties: Record<string, unknown> }>();
  for (const [logicalId, resource] of Object.entries(resources)) {
    const entry = ENTRY_IN_DESCRIPTION.exec(String(resource.Properties?.Description ?? ''))?.[1];
    if (entry !== undefined) byEntry.set(entry, { logicalId, properties: resource.Properties ?? {} });
  }
  return byEntry;
}

function environmentOf(properties: Record<string, unknown>): Record<string, unknown> {
  return (properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
}

/** IAM statements attached to the role of a function. */
function statementsForRole(policies: Record<string, CfnResource>, roleLogicalId: string): Array<Record<string, unknown>> {
  return Object.values(policies)
    .filter((policy) => JSON.stringify(policy.Properties?.Roles ?? []).includes(`"${roleLogicalId}"`))
    .flatMap((policy) => (policy.Properties?.PolicyDocument as { Statement: Array<Record<string, unknown>> }).Statement);
}

function actionsOf(statements: Array<Record<string, unknown>>): string[] {
  return statements.flatMap((statement) => [statement.Action].flat() as string[]);
}

describe('service functions', () => {
  const { stateless } = synthStage('dev');
  const lambdas = resourcesOfType(stateless, 'AWS::Lambda::Function');
  const functions = routeFunctions(lambdas);
  const policies = resourcesOfType(stateless, 'AWS::IAM::Policy');

  const DATA_ROUTES = {
    'lambdas/handlers/list-grants.ts': 'search',
    'lambdas/handlers/list-contracts.ts': 'search',
    'lambdas/handlers/list-funders.ts': 'search',
    'lambdas/handlers/get-grant.ts': 'records',
    'lambdas/handlers/get-contract.ts': 'records',
    'lambdas/handlers/get-funder.ts': 'records',
    'lambdas/handlers/semantic-search.ts': 'search',
    'lambdas/handlers/match-grants.ts': 'search',
  } as const;

  it('creates exactly one function per route, the indexer and its vector backfill, the authorizer, the index bootstrap and the logging-role check with their providers, the three webhook functions, and nothing else', () => {
    expect([...functions.keys()].sort()).toEqual([
      'lambdas/handlers/account-api.ts',
      'lambdas/handlers/authorize-request.ts',
      'lambdas/handlers/backfill-vectors.ts',
      'lambdas/handlers/bootstrap-search-index.ts',
      'lambdas/handlers/check-api-logging-role.ts',
      'lambdas/handlers/docs-page.ts',
      'lambdas/handlers/fan-out-change-events.ts',
      'lambdas/handlers/get-contract.ts',
      'lambdas/handlers/get-funder.ts',
      'lambdas/handlers/get-grant.ts',
      'lambdas/handlers/index-record-changes.ts',
      'lambdas/handlers/list-contracts.ts',
      'lambdas/handlers/list-funders.ts',
      'lambdas/handlers/list-grants.ts',
      'lambdas/handlers/match-grants.ts',
      'lambdas/handlers/openapi.ts',
      'lambdas/handlers/scan-deadlines.ts',
      'lambdas/handlers/semantic-search.ts',
      'lambdas/handlers/send-webhooks.ts',
    ]);
    // The others are the custom-resource Provider framework's onEvent functions, the docs assets'
    // and the developer dashboard's deploy-time uploads, and (a throwaway stage) the one function
    // emptying the docs assets' and the canary's buckets on stack deletion.
    const others = Object.entries(lambdas).filter(([id]) => ![...functions.values()].some((fn) => fn.logicalId === id));
    expect(others.map(([id]) => id).sort()).toEqual([
      expect.stringMatching(/^ApiLoggingRoleProviderframeworkonEvent/),
      expect.stringMatching(/^CustomCDKBucketDeployment[0-9A-F]+256MiB/),
      expect.stringMatching(/^CustomCDKBucketDeployment[0-9A-F]+$/),
      expect.stringMatching(/^CustomS3AutoDeleteObjectsCustomResourceProviderHandler/),
      expect.stringMatching(/^SearchIndexBootstrapProviderframeworkonEvent/),
    ]);
  });

  it('runs every function on Node 22, arm64, with X-Ray, source maps and its own log group', () => {
    for (const [entry, { properties }] of functions) {
      expect(properties.Runtime, entry).toBe('nodejs22.x');
      expect(properties.Architectures, entry).toEqual(['arm64']);
      expect(properties.TracingConfig, entry).toEqual({ Mode: 'Active' });
      expect(properties.Handler, entry).toBe('index.handler');
      expect(properties.MemorySize, entry).toBe(entry.endsWith('bootstrap-search-index.ts') ? 256 : entry.endsWith('check-api-logging-role.ts') ? 128 : 512);
      // Route functions must answer before API Gateway's 29 s; the stream indexer may take a minute;
      // the authorizer is two reads; the deploy-time bootstrap creates indices; the webhook sender
      // attempts ten deliveries of 10 s at most in parallel; the deadline scan pages the index.
      const timeouts: Record<string, number> = {
        'lambdas/handlers/index-record-changes.ts': 60,
        'lambdas/handlers/authorize-request.ts': 10,
        'lambdas/handlers/bootstrap-search-index.ts': 120,
        'lambdas/handlers/check-api-logging-role.ts': 30,
        'lambdas/handlers/backfill-vectors.ts': 300,
        'lambdas/handlers/send-webhooks.ts': 60,
        'lambdas/handlers/fan-out-change-events.ts': 60,
        'lambdas/handlers/scan-deadlines.ts': 600,
      };
      expect(properties.Timeout, entry).toBe(timeouts[entry] ?? 15);
      expect(environmentOf(properties).NODE_OPTIONS, entry).toBe('--enable-source-maps');
      expect(environmentOf(properties).POWERTOOLS_SERVICE_NAME, entry).toBe('gcf-data-service');
      const logGroup = (properties.LoggingConfig as { LogGroup?: unknown } | undefined)?.LogGroup;
      expect(logGroup, entry).toEqual({ Ref: expect.stringMatching(/Logs/) });
    }
  });

  it('gives log groups the stage retention', () => {
    const logGroups = Object.values(resourcesOfType(stateless, 'AWS::Logs::LogGroup'));
    // One per function (ten routes, the account API, the indexer and its vector backfill, the authorizer, the
    // bootstrap and the logging-role check with their providers, three for webhooks, the docs
    // assets' and the dashboard's uploads and the one emptier of the docs and canary buckets), the
    // API access log and the WAF log.
    expect(logGroups).toHaveLength(26);
    for (const logGroup of logGroups) expect(logGroup.Properties?.RetentionInDays).toBe(7);
    const prodLogGroups = Object.values(resourcesOfType(synthStage('prod').stateless, 'AWS::Logs::LogGroup'));
    expect(prodLogGroups.every((logGroup) => logGroup.DeletionPolicy === 'Retain')).toBe(true);
  });

  it('sets RECORDS_TABLE_NAME on every data route (usage counters) and SEARCH_DOMAIN_ENDPOINT on list routes only', () => {
    for (const [entry, binding] of Object.entries(DATA_ROUTES)) {
      const environment = environmentOf(functions.get(entry)?.properties ?? {});
      expect(environment.RECORDS_TABLE_NAME, entry).toEqual(statefulOutputReference(/RecordsTable/));
      if (binding === 'records') {
        expect(environment.SEARCH_DOMAIN_ENDPOINT, entry).toBeUndefined();
      } else {
        expect(environment.SEARCH_DOMAIN_ENDPOINT, entry).toEqual({ 'Fn::Join': ['', ['https://', statefulOutputReference(/SearchDomainDomainEndpoint/)]] });
      }
    }
    for (const entry of Object.keys(DATA_ROUTES).filter((e) => DATA_ROUTES[e as keyof typeof DATA_ROUTES] === 'search')) {
      expect(environmentOf(functions.get(entry)!.properties), entry).toMatchObject({
        EMBEDDING_MODEL: 'amazon.titan-embed-text-v2:0',
        EMBEDDING_DIMENSIONS: '512',
      });
    }
    for (const entry of ['lambdas/handlers/openapi.ts', 'lambdas/handlers/docs-page.ts']) {
      const publicRoute = environmentOf(functions.get(entry)?.properties ?? {});
      expect(publicRoute.RECORDS_TABLE_NAME, entry).toBeUndefined();
      expect(publicRoute.SEARCH_DOMAIN_ENDPOINT, entry).toBeUndefined();
    }
  });

  it('grants read-only data access matching each binding, and usage counters on usage items only', () => {
    for (const [entry, binding] of Object.entries(DATA_ROUTES)) {
      const role = (functions.get(entry)?.properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
      const allStatements = statementsForRole(policies, role);
      const usage = allStatements.filter((statement) => JSON.stringify(statement.Condition ?? {}).includes('usage#*'));
      expect(usage, entry).toHaveLength(1);
      expect([usage[0]!.Action].flat().sort(), entry).toEqual(['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem']);
      expect(usage[0]!.Condition, entry).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['usage#*'] } });
      // The request log: put only, on its own items.
      const requestLog = allStatements.filter((statement) => JSON.stringify(statement.Condition ?? {}).includes('reqlog#'));
      expect(
        requestLog.map((statement) => [[statement.Action].flat(), statement.Condition]),
        entry,
      ).toEqual([[['dynamodb:PutItem'], { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['reqlog#*'] } }]]);
      const bedrock = allStatements.filter((statement) => [statement.Action].flat().includes('bedrock:InvokeModel'));
      if (binding === 'search') {
        // Query vectors come from the one configured model and no other.
        expect(bedrock, entry).toHaveLength(1);
        expect(JSON.stringify(bedrock[0]!.Resource), entry).toMatch(/:bedrock:.*::foundation-model\/amazon\.titan-embed-text-v2:0"\]\]\}$/);
      } else {
        expect(bedrock, entry).toHaveLength(0);
      }
      const statements = allStatements.filter((statement) => !usage.includes(statement) && !requestLog.includes(statement) && !bedrock.includes(statement));
      const actions = actionsOf(statements);
      if (binding === 'records') {
        expect(actions.filter((action) => action.startsWith('dynamodb:')).sort(), entry).toEqual(['dynamodb:BatchGetItem', 'dynamodb:GetItem']);
        expect(
          actions.some((action) => action.startsWith('es:')),
          entry,
        ).toBe(false);
      } else {
        expect(actions, entry).toEqual(expect.arrayContaining(['es:ESHttpGet', 'es:ESHttpHead', 'es:ESHttpPost']));
        expect(
          actions.some((action) => action.startsWith('dynamodb:')),
          entry,
        ).toBe(false);
        // POST only on read APIs: never _bulk, _doc or _update.
        const postResources = statements
          .filter((statement) => [statement.Action].flat().includes('es:ESHttpPost'))
          .flatMap((statement) => [statement.Resource].flat());
        expect(postResources.length, entry).toBeGreaterThan(0);
        for (const resource of postResources) expect(JSON.stringify(resource), entry).toMatch(/\/(_search|_msearch|_count|_mget)"\]\]\}$/);
      }
      for (const action of actions) expect(action, entry).not.toMatch(/dynamodb:(PutItem|UpdateItem|DeleteItem|BatchWriteItem)|es:ESHttp(Put|Delete|Patch)/);
    }
    // The public routes (the document and the docs page) may touch no data at all.
    for (const entry of ['lambdas/handlers/openapi.ts', 'lambdas/handlers/docs-page.ts']) {
      const publicRole = (functions.get(entry)?.properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
      expect(
        actionsOf(statementsForRole(policies, publicRole)).filter((action) => !action.startsWith('xray:')),
        entry,
      ).toEqual([]);
    }
  });
});
