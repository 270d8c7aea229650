import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RemovalPolicy } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { TIER_QUOTAS_ENV, tierPoliciesFromEnv } from '../../lambdas/composition/tier-quotas-env';
import { DEFAULT_TIER_QUOTAS } from '../../lambdas/core/auth/tier-quotas';
import { ACCOUNT_ROUTES, API_ROUTES } from '../../lib/api-routes';
import { checkDeployable, indexReplicasOf, isEphemeralStageName, mergeOverrides, searchConcurrencyOf, stageConfig } from '../../lib/config';
import { PROJECT_ROOT } from '../../lib/project-root';
import { stageOverridesFromContext } from '../../lib/stage-context';
import { type CfnResource, referencedLogicalIds, resourcesOfType, synthStage } from './synth-stacks';

describe('stageConfig', () => {
  it('treats only dev and dev-* stages as ephemeral', () => {
    expect(isEphemeralStageName('dev')).toBe(true);
    expect(isEphemeralStageName('dev-alice')).toBe(true);
    expect(isEphemeralStageName('prod')).toBe(false);
    expect(isEphemeralStageName('staging')).toBe(false);
    expect(isEphemeralStageName('developer')).toBe(false);
  });

  it('retains stateful resources unless the stage is ephemeral', () => {
    expect(stageConfig('prod').statefulRemovalPolicy).toBe(RemovalPolicy.RETAIN);
    expect(stageConfig('staging').statefulRemovalPolicy).toBe(RemovalPolicy.RETAIN);
    expect(stageConfig('dev').statefulRemovalPolicy).toBe(RemovalPolicy.DESTROY);
    expect(stageConfig('prod', { ephemeral: true }).statefulRemovalPolicy).toBe(RemovalPolicy.DESTROY);
  });

  it('applies overrides without losing the other defaults, and ignores undefined ones', () => {
    const config = stageConfig('dev', {
      search: { ebsVolumeSizeGiB: 20 },
      functions: { memorySizeMb: 1024 },
      api: { manageAccountCloudWatchRole: undefined },
    });
    expect(config.search.ebsVolumeSizeGiB).toBe(20);
    expect(config.search.dataNodeInstanceType).toBe('t3.small.search');
    expect(config.functions.memorySizeMb).toBe(1024);
    expect(config.functions.timeout.toSeconds()).toBe(15);
    expect(config.api.manageAccountCloudWatchRole).toBe(false);
  });

  it('rejects stage names that cannot appear in stack names', () => {
    expect(() => stageConfig('Prod')).toThrow(/Invalid stage name/);
    expect(() => stageConfig('')).toThrow(/Invalid stage name/);
    expect(() => stageConfig('prod_eu')).toThrow(/Invalid stage name/);
  });

  it('takes the k-NN graph and window of the search indices, each setting over the defaults, and names a wrong one', () => {
    expect(stageConfig('prod').search.vectors).toEqual({ engine: 'lucene', m: 16, efConstruction: 128, window: 300 });
    expect(stageConfig('prod', { search: { vectors: { engine: 'faiss', window: 2_000 } } }).search.vectors).toEqual({
      engine: 'faiss',
      m: 16,
      efConstruction: 128,
      window: 2_000,
    });
    expect(() => stageConfig('prod', { search: { vectors: { window: 20_000 } } })).toThrow(
      'Search domain: vector search window must be a whole number from 1 to 10000, not 20000',
    );
    expect(stageOverridesFromContext({ qa: { search: { vectors: { window: 500 } } } }, 'qa').search).toEqual({ vectors: { window: 500 } });
    expect(() => stageOverridesFromContext({ qa: { search: { vectors: { k: 500 } } } }, 'qa')).toThrow(/qa\.search\.vectors: k is not a setting/);
  });

  it('takes the search engine version from cdk.json as OpenSearch_<major>.<minor>, and names a wrong one', () => {
    const overrides = stageOverridesFromContext({ qa: { search: { engineVersion: 'OpenSearch_3.1' } } }, 'qa');
    expect(stageConfig('qa', overrides).search.engineVersion.version).toBe('OpenSearch_3.1');
    expect(stageConfig('qa').search.engineVersion.version).toBe('OpenSearch_2.19');
    expect(() => stageOverridesFromContext({ qa: { search: { engineVersion: '3.1' } } }, 'qa')).toThrow(
      /qa\.search\.engineVersion: must look like OpenSearch_2\.19/,
    );
  });

  it('rejects a data node count that does not divide over the availability zones', () => {
    expect(() => stageConfig('prod', { search: { dataNodeCount: 3, availabilityZoneCount: 2 } })).toThrow(/evenly/);
  });
});

describe('stage config in cdk.json (context "stages")', () => {
  const cdkJson = JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as { context: { stages: Record<string, unknown> } };
  const stages = cdkJson.context.stages;
  const configOf = (stage: string, context: unknown = stages) => stageConfig(stage, stageOverridesFromContext(context, stage));
  /** cdk.json's stages with one stage's entry changed. */
  const withEntry = (stage: string, change: (entry: Record<string, any>) => void) => {
    const copy = structuredClone(stages) as Record<string, Record<string, any>>;
    change(copy[stage]!);
    return copy;
  };

  it('lists dev and prod, and both parse into a valid config', () => {
    expect(Object.keys(stages)).toEqual(['dev', 'prod']);
    const dev = configOf('dev');
    expect(dev.search).toMatchObject({
      dataNodeInstanceType: 't3.small.search',
      dataNodeCount: 1,
      availabilityZoneCount: 1,
      ebsVolumeSizeGiB: 10,
      dedicatedMasters: null,
    });
    expect(dev.embeddings.dimensions).toBe(512);
    expect(dev.tierQuotas).toEqual(DEFAULT_TIER_QUOTAS);
    expect(dev.alarms).toEqual({});
    expect(dev.webhooks.deadlineScanAtUtc).toBe('06:00');
    expect(dev.functions.reservedConcurrency).toEqual({});

    const prod = configOf('prod');
    expect(prod.search).toMatchObject({ dataNodeInstanceType: 'r7g.large.search', dataNodeCount: 2, availabilityZoneCount: 2, ebsVolumeSizeGiB: 50 });
    expect(prod.search.dedicatedMasters).toEqual({ instanceType: 'm7g.large.search', count: 3 });
    expect(prod.tierQuotas).toEqual(DEFAULT_TIER_QUOTAS);
    expect(prod.alarms).toEqual({ email: 'ops@example.org' });
    // Bulkheads: the search routes sized to the domain, the authorizer and the indexer (docs/deploy.md "Bulkheads").
    expect(prod.functions.reservedConcurrency).toEqual({ search: 8, authorizer: 50, indexer: 10 });
    expect(prod.functions.accountConcurrencyQuota).toBe(1000);
  });

  it('refuses to synthesize a durable stage whose alarms would go to a placeholder address, naming the key', () => {
    const key = 'cdk.json context stages.prod.alarms.email';
    expect(() => checkDeployable(configOf('prod'), key)).toThrow(
      'cdk.json context stages.prod.alarms.email is "ops@example.org", a placeholder (example.org is reserved for examples): alarms of stage prod would reach no one. Set it to the on-call address, or to null for no e-mail.',
    );
    for (const email of ['oncall@mail.example.com', 'a@b.test', 'x@y.invalid', 'ops@corp.example']) {
      expect(() => checkDeployable(stageConfig('staging', { alarms: { email } }), key), email).toThrow(/a placeholder/);
    }
    expect(() => checkDeployable(stageConfig('prod', { alarms: { email: 'oncall@acme-grants.org' } }), key)).not.toThrow();
    expect(() => checkDeployable(stageConfig('prod', { alarms: { email: 'oncall@myexample.org' } }), key)).not.toThrow();
    expect(() => checkDeployable(stageConfig('prod'), key)).not.toThrow();
    // A throwaway stage may keep one.
    expect(() => checkDeployable(stageConfig('dev', { alarms: { email: 'ops@example.org' } }), key)).not.toThrow();
  });

  it("takes a docsBaseUrl for the alarms' runbook links, without its trailing slash, and refuses anything but an http(s) URL", () => {
    expect(stageConfig('prod', { alarms: { docsBaseUrl: 'https://git.acme.net/gcf/blob/main/docs/' } }).alarms).toEqual({
      docsBaseUrl: 'https://git.acme.net/gcf/blob/main/docs',
    });
    expect(() => stageConfig('prod', { alarms: { docsBaseUrl: 'docs/' } })).toThrow(/Alarms: docsBaseUrl must be an http\(s\) URL of the docs folder/);
    expect(stageOverridesFromContext({ qa: { alarms: { docsBaseUrl: 'https://x.org/docs' } } }, 'qa').alarms).toEqual({ docsBaseUrl: 'https://x.org/docs' });
  });

  it('gives a stage it does not list the defaults: dev-like for dev-*, prod-like otherwise', () => {
    expect(stageOverridesFromContext(stages, 'dev-alice')).toEqual({});
    expect(configOf('dev-alice').search.dedicatedMasters).toBeNull();
    expect(configOf('staging').search.dedicatedMasters).toEqual({ instanceType: 'm7g.large.search', count: 3 });
    expect(configOf('staging').alarms).toEqual({});
    expect(stageOverridesFromContext(undefined, 'prod')).toEqual({});
  });

  it('lets -c flags override the cdk.json entry without erasing the rest', () => {
    const merged = mergeOverrides(stageOverridesFromContext(stages, 'prod'), {
      embeddings: { dimensions: 1024, semanticFloor: undefined },
      alarms: { email: undefined },
      webhooks: { deadlineScanAtUtc: '13:30' },
    });
    const config = stageConfig('prod', merged);
    expect(config.embeddings.dimensions).toBe(1024);
    expect(config.alarms.email).toBe('ops@example.org');
    expect(config.webhooks.deadlineScanAtUtc).toBe('13:30');
    expect(config.search.dedicatedMasters?.count).toBe(3);
  });

  it('changes the quotas of the tiers an entry lists, and only those', () => {
    const context = withEntry('prod', (entry) => {
      entry.tierQuotas = { basic: { dailyQuota: 2000, throttle: { rateLimit: 20, burstLimit: 40 } } };
    });
    const quotas = configOf('prod', context).tierQuotas;
    expect(quotas.basic).toEqual({ dailyQuota: 2000, throttle: { rateLimit: 20, burstLimit: 40 } });
    expect(quotas.pro).toEqual(DEFAULT_TIER_QUOTAS.pro);
  });

  it('refuses bad values with an error naming the key, whichever stage is synthesized', () => {
    const refusal = (stage: string, change: (entry: Record<string, any>) => void) => () => stageOverridesFromContext(withEntry(stage, change), 'dev');
    expect(
      refusal('prod', (e) => {
        e.serch = {};
      }),
    ).toThrow('cdk.json context stages.prod: serch is not a setting');
    expect(
      refusal('prod', (e) => {
        e.search.dataNodeCount = '2';
      }),
    ).toThrow(/^cdk\.json context stages\.prod\.search\.dataNodeCount: .*expected number/);
    expect(
      refusal('prod', (e) => {
        e.search.dedicatedMasters.count = 2;
      }),
    ).toThrow('cdk.json context stages.prod.search.dedicatedMasters.count: must be one of 3, 5');
    expect(
      refusal('prod', (e) => {
        e.search.dedicatedMasters.instanceType = 'm7g.large';
      }),
    ).toThrow(/stages\.prod: .*dedicatedMasters\.instanceType must be an OpenSearch instance type/);
    expect(
      refusal('prod', (e) => {
        e.search.availabilityZoneCount = 4;
      }),
    ).toThrow('stages.prod.search.availabilityZoneCount: must be one of 1, 2, 3');
    expect(
      refusal('prod', (e) => {
        e.search.availabilityZoneCount = 3;
      }),
    ).toThrow(/stages\.prod: .*2 data nodes cannot be spread evenly over 3/);
    expect(
      refusal('prod', (e) => {
        e.search.ebsVolumeSizeGiB = 5;
      }),
    ).toThrow(/stages\.prod: .*ebsVolumeSizeGiB must be a whole number of GiB, at least 10/);
    expect(
      refusal('dev', (e) => {
        e.embeddings.dimensions = 768;
      }),
    ).toThrow('stages.dev.embeddings.dimensions: must be one of 256, 512, 1024');
    expect(
      refusal('dev', (e) => {
        e.tierQuotas.basic.dailyQuota = -1;
      }),
    ).toThrow(/^cdk\.json context stages\.dev\.tierQuotas\.basic\.dailyQuota must be a whole number/);
    expect(
      refusal('dev', (e) => {
        e.tierQuotas.gold = { dailyQuota: 1, throttle: null };
      }),
    ).toThrow(/stages\.dev\.tierQuotas\.gold is not a tier/);
    expect(
      refusal('prod', (e) => {
        e.alarms.email = 'ops at example.org';
      }),
    ).toThrow(/stages\.prod: Alarms: email must be an e-mail address/);
    expect(
      refusal('prod', (e) => {
        e.webhooks.deadlineScanAtUtc = '6am';
      }),
    ).toThrow(/stages\.prod: .*deadline scan time must be "HH:MM"/);
    expect(
      refusal('prod', (e) => {
        e.functions.reservedConcurrency.deadlineScanner = 0;
      }),
    ).toThrow(/stages\.prod: .*reservedConcurrency\.deadlineScanner must be a whole number of at least 1/);
    expect(
      refusal('prod', (e) => {
        e.functions.reservedConcurrency.scanner = 1;
      }),
    ).toThrow('stages.prod.functions.reservedConcurrency: scanner is not a setting');
    expect(() => stageOverridesFromContext({ Prod: {} }, 'dev')).toThrow(/stages\.Prod: Invalid stage name/);
    expect(() => stageOverridesFromContext('{"dev":{}}', 'dev')).toThrow(/context stages must be an object/);
  });

  it('treats null as none: no dedicated masters, no alarm e-mail, no reservation', () => {
    const context = withEntry('prod', (entry) => {
      entry.search.dedicatedMasters = null;
      entry.alarms.email = null;
      entry.functions.reservedConcurrency = { deadlineScanner: null };
    });
    const config = configOf('prod', context);
    expect(config.search.dedicatedMasters).toBeNull();
    expect(config.alarms).toEqual({});
    expect(config.functions.reservedConcurrency).toEqual({});
  });
});

describe('stage config in the stacks', () => {
  const basic = { dailyQuota: 2000, throttle: { rateLimit: 20, burstLimit: 40 } };
  const prod = synthStage('prod', { tierQuotas: { basic }, functions: { reservedConcurrency: { api: 5, deadlineScanner: 1 } } });
  const dev = synthStage('dev');
  const functions = (template: Template) => Object.values(resourcesOfType(template, 'AWS::Lambda::Function'));
  const envOf = (fn: CfnResource) => (fn.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};

  it('gives the functions that count quotas the stage quotas, and the WAF the per-key rate', () => {
    const acl = Object.values(resourcesOfType(prod.stateless, 'AWS::WAFv2::WebACL'))[0]!;
    const perKey = (acl.Properties?.Rules as { Name: string; Statement: { RateBasedStatement: { Limit: number } } }[]).find((r) => r.Name === 'RatePerApiKey')!;
    // The fastest throttled tier is pro (50 rps) over a 5-minute window.
    expect(perKey.Statement.RateBasedStatement.Limit).toBe(15_000);
    const counting = functions(prod.stateless).filter((fn) => TIER_QUOTAS_ENV in envOf(fn));
    // Every data route and the account API's one function (it shows each plan's quota); not the
    // OpenAPI document, the authorizer or the background functions.
    expect(counting).toHaveLength(API_ROUTES.filter((route) => route.bindings.includes('usage')).length + 1);
    for (const fn of counting) {
      expect(tierPoliciesFromEnv({ [TIER_QUOTAS_ENV]: String(envOf(fn)[TIER_QUOTAS_ENV]) }).basic).toMatchObject(basic);
    }
  });

  it("sizes the search functions' reservation to the domain's search threads: cdk.json's prod entry matches its data nodes", () => {
    expect(searchConcurrencyOf({ dataNodeInstanceType: 'r7g.large.search', dataNodeCount: 2 })).toBe(8);
    expect(searchConcurrencyOf({ dataNodeInstanceType: 'r7g.2xlarge.search', dataNodeCount: 3 })).toBe(39);
    expect(searchConcurrencyOf({ dataNodeInstanceType: 't3.small.search', dataNodeCount: 1 })).toBe(4);
    expect(() => searchConcurrencyOf({ dataNodeInstanceType: 'r7g.huge.search', dataNodeCount: 1 })).toThrow(/cannot tell the vCPUs/);
    const prodFromJson = stageConfig(
      'prod',
      stageOverridesFromContext(JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')).context.stages, 'prod'),
    );
    expect(prodFromJson.functions.reservedConcurrency.search).toBe(searchConcurrencyOf(prodFromJson.search));
    // The search routes get it; the other routes and background functions do not.
    const synthed = synthStage('prod', { functions: { reservedConcurrency: { search: 8 } } });
    const reserved = functions(synthed.stateless).filter((fn) => fn.Properties?.ReservedConcurrentExecutions !== undefined);
    const searchRoutes = API_ROUTES.filter((route) => route.bindings.includes('search'));
    expect(reserved.map((fn) => String(fn.Properties?.Description).replace(/ \(.*/, '')).sort()).toEqual(
      searchRoutes.map((route) => `${route.method} /v1${route.path}`).sort(),
    );
    expect(reserved.every((fn) => fn.Properties?.ReservedConcurrentExecutions === 8)).toBe(true);
  });

  it('reserves concurrency for the configured groups only', () => {
    const reserved = functions(prod.stateless).filter((fn) => fn.Properties?.ReservedConcurrentExecutions !== undefined);
    expect(reserved.map((fn) => [String(fn.Properties?.Description).replace(/ .*/, ''), fn.Properties?.ReservedConcurrentExecutions]).sort()).toEqual(
      // The account API's one function (its first route names it) is in the api group too.
      [...API_ROUTES.map((route) => [route.method, 5]), [ACCOUNT_ROUTES[0]!.method, 5], ['Deadline', 1]].sort(),
    );
    expect(functions(dev.stateless).filter((fn) => fn.Properties?.ReservedConcurrentExecutions !== undefined)).toEqual([]);
  });

  it('gives each index one replica per extra zone (never more copies than data nodes), to the functions that create indices and to the admin CLI', () => {
    expect(
      [
        [1, 1],
        [2, 2],
        [3, 3],
        [3, 6],
        [2, 1],
        [3, 2],
      ].map(([zones, nodes]) => indexReplicasOf({ availabilityZoneCount: zones as 1 | 2 | 3, dataNodeCount: nodes! })),
    ).toEqual([0, 1, 2, 2, 0, 1]);
    for (const [stage, replicas] of [
      [prod, '1'],
      [dev, '0'],
    ] as const) {
      const creators = functions(stage.stateless).filter((fn) => 'SEARCH_INDEX_REPLICAS' in envOf(fn));
      expect(
        creators
          .map((fn) =>
            String(fn.Properties?.Description)
              .replace(/[:(].*/, '')
              .trim(),
          )
          .sort(),
      ).toEqual(['Deploy-time bootstrap of the search indices and aliases', 'Indexer', 'Vector backfill']);
      for (const fn of creators) expect(envOf(fn).SEARCH_INDEX_REPLICAS).toBe(replicas);
      stage.stateful.hasOutput('SearchIndexReplicas', { Value: replicas });
      stage.stateful.hasOutput('SearchVectorSettings', { Value: JSON.stringify({ engine: 'lucene', m: 16, efConstruction: 128, window: 300 }) });
    }
  });

  it("gives every function that reads or writes the search indices the stage's k-NN graph and window", () => {
    const searchers = functions(prod.stateless).filter((fn) => 'SEARCH_DOMAIN_ENDPOINT' in envOf(fn));
    expect(searchers.length).toBeGreaterThan(5);
    for (const fn of searchers)
      expect(JSON.parse(String(envOf(fn).SEARCH_VECTOR_SETTINGS))).toEqual({ engine: 'lucene', m: 16, efConstruction: 128, window: 300 });
  });

  it('sizes the search domain from the stage: dedicated masters in prod, none in dev', () => {
    prod.stateful.hasResourceProperties('AWS::OpenSearchService::Domain', {
      ClusterConfig: Match.objectLike({ DedicatedMasterEnabled: true, DedicatedMasterCount: 3, DedicatedMasterType: 'm7g.large.search' }),
    });
    dev.stateful.hasResourceProperties('AWS::OpenSearchService::Domain', {
      ClusterConfig: Match.objectLike({ DedicatedMasterEnabled: false }),
    });
  });

  it("sends the domain's slow search, slow index and error logs to log groups with the stage retention", () => {
    for (const [{ stateful }, days] of [
      [dev, 7],
      [prod, 90],
    ] as const) {
      const domain = Object.values(resourcesOfType(stateful, 'AWS::OpenSearchService::Domain'))[0]!;
      const options = domain.Properties?.LogPublishingOptions as Record<string, { Enabled: boolean; CloudWatchLogsLogGroupArn: unknown }>;
      expect(Object.keys(options).sort()).toEqual(['ES_APPLICATION_LOGS', 'INDEX_SLOW_LOGS', 'SEARCH_SLOW_LOGS']);
      const groups = resourcesOfType(stateful, 'AWS::Logs::LogGroup');
      for (const option of Object.values(options)) {
        expect(option.Enabled).toBe(true);
        const [groupId] = referencedLogicalIds(option.CloudWatchLogsLogGroupArn);
        expect(groups[groupId!]?.Properties?.RetentionInDays).toBe(days);
      }
      // The service may write to them: a resource policy the domain waits for, not a custom resource.
      const [policyId, policy] = Object.entries(resourcesOfType(stateful, 'AWS::Logs::ResourcePolicy'))[0]!;
      expect(String(JSON.stringify(policy.Properties?.PolicyDocument))).toContain('es.amazonaws.com');
      expect(domain.DependsOn).toContain(policyId);
      expect(Object.keys(resourcesOfType(stateful, 'Custom::CloudwatchLogResourcePolicy'))).toEqual([]);
    }
  });
});
