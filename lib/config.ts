import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { EngineVersion } from 'aws-cdk-lib/aws-opensearchservice';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';

/** Sizing of the OpenSearch domain that serves list, filter, sort, count and search. */
export interface SearchDomainSettings {
  readonly engineVersion: EngineVersion;
  /** e.g. `t3.small.search`, `r7g.large.search`. */
  readonly dataNodeInstanceType: string;
  readonly dataNodeCount: number;
  /** 1 disables zone awareness; 2 or 3 spread the data nodes over that many AZs. */
  readonly availabilityZoneCount: 1 | 2 | 3;
  readonly ebsVolumeSizeGiB: number;
}

/** The embedding model of records and queries (Bedrock); changing it means rebuilding the index. */
export interface EmbeddingSettings {
  /** A Bedrock model id; the adapter speaks Titan Text Embeddings V2's request format. */
  readonly model: 'amazon.titan-embed-text-v2:0';
  readonly dimensions: 256 | 512 | 1024;
  /** Minimum cosine similarity of a semantic match; the model's default (lambdas/core/search/relevance.ts) when unset. */
  readonly semanticFloor?: number;
}

/** Defaults every API Lambda shares. */
export interface FunctionSettings {
  readonly memorySizeMb: number;
  readonly timeout: Duration;
  readonly logRetention: RetentionDays;
}

export interface ApiSettings {
  readonly accessLogRetention: RetentionDays;
  /**
   * API Gateway writes access logs only once the account has a CloudWatch role. That role is an
   * account-wide singleton, so exactly one stage per account should own it (or it is set up by hand).
   */
  readonly manageAccountCloudWatchRole: boolean;
}

export interface WebhookSettings {
  /** When the daily deadline scan runs, "HH:MM" in UTC. */
  readonly deadlineScanAtUtc: string;
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
}

export interface StageConfigOverrides {
  readonly ephemeral?: boolean;
  readonly serviceName?: string;
  readonly search?: Partial<SearchDomainSettings>;
  readonly embeddings?: Partial<EmbeddingSettings>;
  readonly functions?: Partial<FunctionSettings>;
  readonly api?: Partial<ApiSettings>;
  readonly webhooks?: Partial<WebhookSettings>;
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

const EPHEMERAL_SEARCH: SearchDomainSettings = {
  engineVersion: EngineVersion.OPENSEARCH_2_19,
  dataNodeInstanceType: 't3.small.search',
  dataNodeCount: 1,
  availabilityZoneCount: 1,
  ebsVolumeSizeGiB: 10,
};

const DURABLE_SEARCH: SearchDomainSettings = {
  engineVersion: EngineVersion.OPENSEARCH_2_19,
  dataNodeInstanceType: 'r7g.large.search',
  dataNodeCount: 2,
  availabilityZoneCount: 2,
  ebsVolumeSizeGiB: 50,
};

export function stageConfig(stage: string, overrides: StageConfigOverrides = {}): StageConfig {
  if (!STAGE_NAME_PATTERN.test(stage)) {
    throw new Error(`Invalid stage name "${stage}": use 1-20 lower-case letters, digits or dashes, starting with a letter`);
  }
  const ephemeral = overrides.ephemeral ?? isEphemeralStageName(stage);
  const search: SearchDomainSettings = { ...(ephemeral ? EPHEMERAL_SEARCH : DURABLE_SEARCH), ...definedOnly(overrides.search) };
  if (search.dataNodeCount % search.availabilityZoneCount !== 0) {
    throw new Error(
      `Search domain: ${search.dataNodeCount} data nodes cannot be spread evenly over ${search.availabilityZoneCount} availability zones`,
    );
  }
  const embeddings: EmbeddingSettings = { model: 'amazon.titan-embed-text-v2:0', dimensions: 512, ...definedOnly(overrides.embeddings) };
  if (![256, 512, 1024].includes(embeddings.dimensions)) {
    throw new Error(`Embeddings: Titan Text Embeddings V2 makes 256, 512 or 1024 dimensions, not ${embeddings.dimensions}`);
  }
  if (embeddings.semanticFloor !== undefined && !(embeddings.semanticFloor >= 0 && embeddings.semanticFloor < 1)) {
    throw new Error(`Embeddings: the semantic floor must be in [0, 1), not ${embeddings.semanticFloor}`);
  }
  const webhooks: WebhookSettings = { deadlineScanAtUtc: '06:00', ...definedOnly(overrides.webhooks) };
  utcTimeOf(webhooks.deadlineScanAtUtc);
  return {
    stage,
    ephemeral,
    statefulRemovalPolicy: ephemeral ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
    serviceName: overrides.serviceName ?? 'gcf-data-service',
    search,
    embeddings,
    functions: {
      memorySizeMb: 512,
      // API Gateway gives up after 29 s; a Lambda should fail first so the error body is ours.
      timeout: Duration.seconds(15),
      logRetention: ephemeral ? RetentionDays.ONE_WEEK : RetentionDays.THREE_MONTHS,
      ...definedOnly(overrides.functions),
    },
    api: {
      accessLogRetention: ephemeral ? RetentionDays.ONE_WEEK : RetentionDays.ONE_YEAR,
      manageAccountCloudWatchRole: false,
      ...definedOnly(overrides.api),
    },
    webhooks,
  };
}
