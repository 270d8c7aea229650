import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { PriceClass } from 'aws-cdk-lib/aws-cloudfront';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { EngineVersion } from 'aws-cdk-lib/aws-opensearchservice';
import { DEFAULT_VECTOR_SEARCH, type VectorSearchSettings, vectorSearchSettingsOf } from '../lambdas/adapters/aws/opensearch-vector-search';
import { parseTierQuotas, type TierQuota, type TierQuotas, tierQuotasWith } from '../lambdas/core/auth/tier-quotas';
import type { TierName } from '../lambdas/core/auth/tiers';
import { ANY_ORIGIN, type CorsOrigins, checkCorsOrigins } from '../lambdas/http/cors';
import { type CanarySettings, checkCanary } from './canary-settings';
import { type CustomDomainSettings, checkCustomDomain } from './custom-domain-settings';
import { type DashboardSettings, dashboardSettingsOf, defaultDashboardDomainPrefix } from './dashboard-settings';
import { type EdgeProtectionSettings, edgeProtectionSettingsOf } from './edge-protection-settings';

/** Dedicated master nodes: cluster management on nodes of their own, so a busy data node cannot stall the cluster. */
export interface DedicatedMasterSettings {
  /** e.g. `m7g.large.search`. */
  readonly instanceType: string;
  /** An odd number, so a quorum survives the loss of one (3) or two (5). */
  readonly count: 3 | 5;
}

/** Sizing of the OpenSearch domain that serves list, filter, sort, count and search. */
/**
 * Replicas per shard of every index: one copy of each shard in every zone the domain spans (never
 * more copies than data nodes). A one-zone domain keeps none; two zones keep one; three keep two,
 * which is also what Multi-AZ with Standby requires (copies a multiple of the zone count).
 */
export function indexReplicasOf(search: Pick<SearchDomainSettings, 'availabilityZoneCount' | 'dataNodeCount'>): number {
  return Math.min(search.availabilityZoneCount, search.dataNodeCount) - 1;
}

/** vCPUs of an OpenSearch instance size (`r7g.large.search` -> large -> 2). */
function vcpusOf(instanceType: string): number {
  const size = instanceType.split('.')[1] ?? '';
  if (['micro', 'small', 'medium', 'large'].includes(size)) return size === 'micro' ? 1 : 2;
  const multiple = /^(\d*)xlarge$/.exec(size);
  if (!multiple) throw new Error(`Search domain: cannot tell the vCPUs of instance type ${instanceType}`);
  return 4 * Number(multiple[1] || 1);
}

/**
 * The searches the domain's data nodes run at once: OpenSearch's search thread pool has
 * vCPUs × 3 / 2 + 1 threads a node; more requests wait in its queue, and past the queue are
 * refused (429). The reserved concurrency of each search function (`functions.reservedConcurrency.search`)
 * sized to it keeps a burst of Lambdas from flooding the queue (docs/deploy.md).
 */
export function searchConcurrencyOf(search: Pick<SearchDomainSettings, 'dataNodeInstanceType' | 'dataNodeCount'>): number {
  return search.dataNodeCount * (Math.floor((vcpusOf(search.dataNodeInstanceType) * 3) / 2) + 1);
}

export interface SearchDomainSettings {
  readonly engineVersion: EngineVersion;
  /** e.g. `t3.small.search`, `r7g.large.search`. */
  readonly dataNodeInstanceType: string;
  readonly dataNodeCount: number;
  /** 1 disables zone awareness; 2 or 3 spread the data nodes over that many AZs. */
  readonly availabilityZoneCount: 1 | 2 | 3;
  /** Per data node; the free-storage alarm fires below 20% of it. */
  readonly ebsVolumeSizeGiB: number;
  /** null: the data nodes also manage the cluster (fine for one or two small nodes). */
  readonly dedicatedMasters: DedicatedMasterSettings | null;
  /** Of the domain's slow search, slow index and error logs. */
  readonly logRetention: RetentionDays;
  /** The k-NN graph of new indices and the window semantic and hybrid queries rank (docs/deploy.md "Vector search"). */
  readonly vectors: VectorSearchSettings;
  /**
   * Who holds the key of the data at rest: a rotated customer-managed KMS key of the stage (its
   * use is in CloudTrail, and disabling it makes the data unreadable), or the AWS-owned key. Fixed
   * when the domain is created (docs/deploy.md "Search domain exposure").
   */
  readonly encryptionKey: 'customer-managed' | 'aws-owned';
}

/** The embedding model of records and queries (Bedrock); changing it means rebuilding the index. */
export interface EmbeddingSettings {
  /** A Bedrock model id; the adapter speaks Titan Text Embeddings V2's request format. */
  readonly model: 'amazon.titan-embed-text-v2:0';
  readonly dimensions: 256 | 512 | 1024;
  /** Minimum cosine similarity of a semantic match; the model's default (lambdas/core/search/relevance.ts) when unset. */
  readonly semanticFloor?: number;
}

/** The functions, in the groups that can be given reserved concurrency. */
export const FUNCTION_GROUPS = ['api', 'search', 'authorizer', 'indexer', 'webhookSender', 'webhookFanOut', 'deadlineScanner'] as const;
export type FunctionGroup = (typeof FUNCTION_GROUPS)[number];

/** Defaults every API Lambda shares. */
export interface FunctionSettings {
  readonly memorySizeMb: number;
  readonly timeout: Duration;
  readonly logRetention: RetentionDays;
  /**
   * Reserved concurrency per function group (`api`: each route's function; `search`: each route's
   * function that queries the search domain, in place of `api`, sized with searchConcurrencyOf).
   * A group left out uses the account's unreserved pool. Reserving caps the group and guarantees
   * it that many.
   */
  readonly reservedConcurrency: Readonly<Partial<Record<FunctionGroup, number>>>;
  /**
   * The account's Lambda concurrent executions quota (1,000 by default, 10 on new accounts): synthesis
   * fails when the reservations leave fewer than 100 of it unreserved (lib/concurrency-budget.ts).
   */
  readonly accountConcurrencyQuota: number;
}

export interface ApiSettings {
  readonly accessLogRetention: RetentionDays;
  /**
   * API Gateway writes access logs only once the account has a CloudWatch role. That role is an
   * account-wide singleton, so exactly one stage per account should own it (or it is set up by hand).
   */
  readonly manageAccountCloudWatchRole: boolean;
  /**
   * The origins whose browser apps may call the API (CORS): `['*']` (the default: any site; keys
   * travel in the Authorization header, never in cookies) or exact origins such as
   * `https://app.example.org`. Preflights, the functions' answers and the gateway's own error
   * answers carry the matching Access-Control-Allow-Origin.
   */
  readonly corsOrigins: CorsOrigins;
  /**
   * The customers' own host name for the API, e.g. `api.example.org` (docs/deploy.md "Custom
   * domain"): kept by the stateful stack, so the base URL outlives the API behind it.
   */
  readonly customDomain?: CustomDomainSettings;
}

export interface WebhookSettings {
  /** When the daily deadline scan runs, "HH:MM" in UTC. */
  readonly deadlineScanAtUtc: string;
}

export interface AlarmSettings {
  /** Subscribed (by e-mail, confirmed once) to the alarm topic; without it alarms only reach the topic. */
  readonly email?: string;
  /**
   * Where the repository's docs/ folder is browsed, e.g. `https://github.com/acme/gcf/blob/main/docs`
   * (no trailing slash): alarm descriptions and the dashboard then link to the runbook section
   * itself; without it they name the repository path docs/runbook.md.
   */
  readonly docsBaseUrl?: string;
}

/** The docs page's static assets on CloudFront (docs/deploy.md "Docs page assets"). */
export interface DocsSettings {
  /** The edge locations that serve them: PriceClass_100 (North America, Europe, Israel) is the cheapest. */
  readonly priceClass: PriceClass;
}

export interface StageConfig {
  /** Lower-case stage name, used in stack names and tags. */
  readonly stage: string;
  /** A throwaway stage (dev): stateful resources are destroyed with the stack instead of retained. */
  readonly ephemeral: boolean;
  /** Applies to the table, the search domain and log groups. */
  readonly statefulRemovalPolicy: RemovalPolicy;
  /** POWERTOOLS_SERVICE_NAME of every function, and the prefix of resource names. */
  readonly serviceName: string;
  readonly search: SearchDomainSettings;
  readonly embeddings: EmbeddingSettings;
  readonly functions: FunctionSettings;
  readonly api: ApiSettings;
  readonly webhooks: WebhookSettings;
  /** Daily quota and gateway throttling per tier: the usage plans and the functions that count quotas (TIER_QUOTAS) read these. */
  readonly tierQuotas: TierQuotas;
  /** Rate limits of the API's web ACL (docs/deploy.md "Edge protection"). */
  readonly edge: EdgeProtectionSettings;
  readonly alarms: AlarmSettings;
  readonly docs: DocsSettings;
  readonly canary: CanarySettings;
  /** The developer dashboard's sign-in (Cognito) and site (docs/deploy.md "Developer dashboard"). */
  readonly dashboard: DashboardSettings;
}

export interface StageConfigOverrides {
  readonly ephemeral?: boolean;
  readonly serviceName?: string;
  readonly search?: Partial<Omit<SearchDomainSettings, 'vectors'>> & { readonly vectors?: Partial<VectorSearchSettings> };
  readonly embeddings?: Partial<EmbeddingSettings>;
  readonly functions?: Partial<FunctionSettings>;
  readonly api?: Partial<ApiSettings>;
  readonly webhooks?: Partial<WebhookSettings>;
  /** Tiers left out keep their TIERS quotas. */
  readonly tierQuotas?: Partial<Record<TierName, TierQuota>>;
  readonly edge?: Partial<EdgeProtectionSettings>;
  /** `email: null` removes a default e-mail. */
  readonly alarms?: { readonly email?: string | null; readonly docsBaseUrl?: string | null };
  readonly docs?: Partial<DocsSettings>;
  readonly canary?: Partial<CanarySettings>;
  readonly dashboard?: Partial<DashboardSettings>;
}

/** Drops keys whose value is undefined, so a spread override never erases a default. */
function definedOnly<T extends object>(values: T | undefined): Partial<T> {
  return Object.fromEntries(Object.entries(values ?? {}).filter(([, value]) => value !== undefined)) as Partial<T>;
}

const UTC_TIME_PATTERN = /^([01]\d|2[0-3]):[0-5]\d$/;

/** "HH:MM" as the hour and minute of a daily schedule. */
export function utcTimeOf(hhmm: string): { hour: number; minute: number } {
  if (!UTC_TIME_PATTERN.test(hhmm)) throw new Error(`Webhooks: the deadline scan time must be "HH:MM" (UTC, 00:00-23:59), not ${JSON.stringify(hhmm)}`);
  const [hour, minute] = hhmm.split(':').map(Number) as [number, number];
  return { hour, minute };
}

const STAGE_NAME_PATTERN = /^[a-z][a-z0-9-]{0,19}$/;

/** Only stages named `dev` or `dev-<something>` are throwaway unless told otherwise; the safe default is to retain. */
export function isEphemeralStageName(stage: string): boolean {
  return stage === 'dev' || stage.startsWith('dev-');
}

const EPHEMERAL_SEARCH: Omit<SearchDomainSettings, 'logRetention'> = {
  engineVersion: EngineVersion.OPENSEARCH_2_19,
  dataNodeInstanceType: 't3.small.search',
  dataNodeCount: 1,
  availabilityZoneCount: 1,
  ebsVolumeSizeGiB: 10,
  dedicatedMasters: null,
  vectors: DEFAULT_VECTOR_SEARCH,
  // Throwaway domains (and the dev domains created before the choice existed) keep the AWS-owned key.
  encryptionKey: 'aws-owned',
};

const DURABLE_SEARCH: Omit<SearchDomainSettings, 'logRetention'> = {
  engineVersion: EngineVersion.OPENSEARCH_2_19,
  dataNodeInstanceType: 'r7g.large.search',
  dataNodeCount: 2,
  availabilityZoneCount: 2,
  ebsVolumeSizeGiB: 50,
  dedicatedMasters: { instanceType: 'm7g.large.search', count: 3 },
  vectors: DEFAULT_VECTOR_SEARCH,
  encryptionKey: 'customer-managed',
};

const SEARCH_INSTANCE_TYPE_PATTERN = /^[a-z][a-z0-9-]*\.[a-z0-9]+\.search$/;
const EMAIL_PATTERN = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

function checkSearch(search: SearchDomainSettings): void {
  for (const [name, type] of [
    ['dataNodeInstanceType', search.dataNodeInstanceType],
    ['dedicatedMasters.instanceType', search.dedicatedMasters?.instanceType],
  ] as const) {
    if (type !== undefined && !SEARCH_INSTANCE_TYPE_PATTERN.test(type)) {
      throw new Error(`Search domain: ${name} must be an OpenSearch instance type such as r7g.large.search, not ${JSON.stringify(type)}`);
    }
  }
  if (!Number.isInteger(search.dataNodeCount) || search.dataNodeCount < 1) {
    throw new Error(`Search domain: dataNodeCount must be a whole number of at least 1, not ${search.dataNodeCount}`);
  }
  if (![1, 2, 3].includes(search.availabilityZoneCount)) {
    throw new Error(`Search domain: availabilityZoneCount must be 1, 2 or 3, not ${search.availabilityZoneCount}`);
  }
  if (search.dataNodeCount % search.availabilityZoneCount !== 0) {
    throw new Error(`Search domain: ${search.dataNodeCount} data nodes cannot be spread evenly over ${search.availabilityZoneCount} availability zones`);
  }
  if (!Number.isInteger(search.ebsVolumeSizeGiB) || search.ebsVolumeSizeGiB < 10) {
    throw new Error(`Search domain: ebsVolumeSizeGiB must be a whole number of GiB, at least 10 (gp3), not ${search.ebsVolumeSizeGiB}`);
  }
  if (search.dedicatedMasters !== null && ![3, 5].includes(search.dedicatedMasters.count)) {
    throw new Error(`Search domain: dedicatedMasters.count must be 3 or 5 (a quorum), not ${search.dedicatedMasters.count}`);
  }
}

function checkReservedConcurrency(reserved: FunctionSettings['reservedConcurrency']): void {
  for (const [group, count] of Object.entries(reserved)) {
    if (!(FUNCTION_GROUPS as readonly string[]).includes(group)) {
      throw new Error(`Functions: reservedConcurrency.${group} is not a function group (expected ${FUNCTION_GROUPS.join(', ')})`);
    }
    if (count !== undefined && (!Number.isInteger(count) || count < 1)) {
      throw new Error(`Functions: reservedConcurrency.${group} must be a whole number of at least 1 (leave it out for no reservation), not ${count}`);
    }
  }
}

function vectorSettingsOf(base: VectorSearchSettings, overrides: Partial<VectorSearchSettings> | undefined): VectorSearchSettings {
  try {
    return vectorSearchSettingsOf({ ...base, ...definedOnly(overrides) });
  } catch (error) {
    throw new Error(`Search domain: ${(error as Error).message}`);
  }
}

export function stageConfig(stage: string, overrides: StageConfigOverrides = {}): StageConfig {
  if (!STAGE_NAME_PATTERN.test(stage)) {
    throw new Error(`Invalid stage name "${stage}": use 1-20 lower-case letters, digits or dashes, starting with a letter`);
  }
  const ephemeral = overrides.ephemeral ?? isEphemeralStageName(stage);
  const logRetention = ephemeral ? RetentionDays.ONE_WEEK : RetentionDays.THREE_MONTHS;
  const base = ephemeral ? EPHEMERAL_SEARCH : DURABLE_SEARCH;
  const search: SearchDomainSettings = {
    ...base,
    logRetention,
    ...definedOnly(overrides.search),
    vectors: vectorSettingsOf(base.vectors, overrides.search?.vectors),
  };
  checkSearch(search);
  const embeddings: EmbeddingSettings = { model: 'amazon.titan-embed-text-v2:0', dimensions: 512, ...definedOnly(overrides.embeddings) };
  if (![256, 512, 1024].includes(embeddings.dimensions)) {
    throw new Error(`Embeddings: Titan Text Embeddings V2 makes 256, 512 or 1024 dimensions, not ${embeddings.dimensions}`);
  }
  if (embeddings.semanticFloor !== undefined && !(embeddings.semanticFloor >= 0 && embeddings.semanticFloor < 1)) {
    throw new Error(`Embeddings: the semantic floor must be in [0, 1), not ${embeddings.semanticFloor}`);
  }
  const webhooks: WebhookSettings = { deadlineScanAtUtc: '06:00', ...definedOnly(overrides.webhooks) };
  utcTimeOf(webhooks.deadlineScanAtUtc);
  const functions: FunctionSettings = {
    memorySizeMb: 512,
    // API Gateway gives up after 29 s; a Lambda should fail first so the error body is ours.
    timeout: Duration.seconds(15),
    logRetention,
    reservedConcurrency: {},
    accountConcurrencyQuota: 1000,
    ...definedOnly(overrides.functions),
  };
  if (!Number.isInteger(functions.memorySizeMb) || functions.memorySizeMb < 128 || functions.memorySizeMb > 10_240) {
    throw new Error(`Functions: memorySizeMb must be a whole number of MB from 128 to 10240, not ${functions.memorySizeMb}`);
  }
  checkReservedConcurrency(functions.reservedConcurrency);
  if (!Number.isInteger(functions.accountConcurrencyQuota) || functions.accountConcurrencyQuota < 10) {
    throw new Error(
      `Functions: accountConcurrencyQuota must be the account's whole Lambda concurrency quota (at least 10), not ${functions.accountConcurrencyQuota}`,
    );
  }
  const email = overrides.alarms?.email ?? undefined;
  if (email !== undefined && !EMAIL_PATTERN.test(email)) {
    throw new Error(`Alarms: email must be an e-mail address, not ${JSON.stringify(email)}`);
  }
  const docsBaseUrl = overrides.alarms?.docsBaseUrl?.replace(/\/+$/, '') ?? undefined;
  if (docsBaseUrl !== undefined && !/^https?:\/\/[^\s/]+(\/\S*)?$/.test(docsBaseUrl)) {
    throw new Error(`Alarms: docsBaseUrl must be an http(s) URL of the docs folder, not ${JSON.stringify(docsBaseUrl)}`);
  }
  const tierQuotas = tierQuotasWith(parseTierQuotas(overrides.tierQuotas ?? {}, 'tierQuotas'));
  const canary: CanarySettings = { scheduleMinutes: 5, searchTerm: 'research', artifactRetentionDays: 30, ...definedOnly(overrides.canary) };
  checkCanary(canary, tierQuotas);
  return {
    stage,
    ephemeral,
    statefulRemovalPolicy: ephemeral ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
    serviceName: overrides.serviceName ?? 'gcf-data-service',
    search,
    embeddings,
    functions,
    api: {
      accessLogRetention: ephemeral ? RetentionDays.ONE_WEEK : RetentionDays.ONE_YEAR,
      manageAccountCloudWatchRole: false,
      ...definedOnly(overrides.api),
      corsOrigins: checkCorsOrigins(overrides.api?.corsOrigins ?? ANY_ORIGIN, 'Api: corsOrigins'),
      ...(overrides.api?.customDomain ? { customDomain: checkCustomDomain(overrides.api.customDomain) } : {}),
    },
    webhooks,
    tierQuotas,
    edge: edgeProtectionSettingsOf(tierQuotas, definedOnly(overrides.edge)),
    alarms: { ...(email === undefined ? {} : { email }), ...(docsBaseUrl === undefined ? {} : { docsBaseUrl }) },
    docs: { priceClass: PriceClass.PRICE_CLASS_100, ...definedOnly(overrides.docs) },
    canary,
    dashboard: dashboardSettingsOf(defaultDashboardDomainPrefix(overrides.serviceName ?? 'gcf-data-service', stage), overrides.dashboard),
  };
}

/** Domains reserved for examples and tests (RFC 2606, RFC 6761): no one reads mail sent there. */
const PLACEHOLDER_MAIL_DOMAIN = /(^|\.)(example\.(com|net|org)|example|test|invalid|localhost)$/i;

/**
 * What only the stage being synthesized must satisfy (cdk.json's other stages may hold
 * placeholders until they are deployed): a durable stage's alarms must reach a real address.
 * `emailKey` names where the address comes from, for the message.
 */
export function checkDeployable(config: StageConfig, emailKey: string): void {
  const domain = config.alarms.email?.split('@')[1];
  if (!config.ephemeral && domain && PLACEHOLDER_MAIL_DOMAIN.test(domain)) {
    throw new Error(
      `${emailKey} is ${JSON.stringify(config.alarms.email)}, a placeholder (${domain} is reserved for examples): alarms of stage ${config.stage} would reach no one. Set it to the on-call address, or to null for no e-mail.`,
    );
  }
}

/** Lower-case sections of StageConfigOverrides that merge key by key. */
const OVERRIDE_SECTIONS = ['search', 'embeddings', 'functions', 'api', 'webhooks', 'tierQuotas', 'edge', 'alarms', 'docs', 'canary', 'dashboard'] as const;

/** `top` over `base`, section by section; undefined values in `top` never erase `base`. */
export function mergeOverrides(base: StageConfigOverrides, top: StageConfigOverrides): StageConfigOverrides {
  const merged: Record<string, unknown> = { ...base, ...definedOnly(top) };
  for (const section of OVERRIDE_SECTIONS) {
    if (base[section] !== undefined || top[section] !== undefined) {
      merged[section] = { ...base[section], ...definedOnly(top[section]) };
    }
  }
  return merged as StageConfigOverrides;
}
