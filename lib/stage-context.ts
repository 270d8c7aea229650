import { PriceClass } from 'aws-cdk-lib/aws-cloudfront';
import { EngineVersion } from 'aws-cdk-lib/aws-opensearchservice';
import { z } from 'zod';
import { parseTierQuotas } from '../lambdas/core/auth/tier-quotas';
import { FUNCTION_GROUPS, type FunctionGroup, type StageConfigOverrides, stageConfig } from './config';
import { DASHBOARD_MFA_MODES } from './dashboard-settings';

/** cdk.json's `stages` context: each entry read as StageConfigOverrides, its mistakes named by key. */

const optionalNullable = <T extends z.ZodType>(schema: T) => z.optional(z.nullable(schema));
const oneOf = <const T extends readonly number[]>(values: T) => z.literal(values, { error: `must be one of ${values.join(', ')}` });

/**
 * One entry of the `stages` context in cdk.json: the JSON form of StageConfigOverrides. Every key
 * is optional (the stage's defaults fill the gaps) and unknown keys are refused, so a typo fails
 * the synth instead of being ignored. null means "none" (dedicated masters, alarm e-mail,
 * reserved concurrency of a group).
 */
const StageContextSchema = z.strictObject({
  ephemeral: z.optional(z.boolean()),
  search: z.optional(
    z.strictObject({
      // e.g. "OpenSearch_2.19": raised in place (enableVersionUpgrade), never lowered (docs/deploy.md "Upgrading a stage").
      engineVersion: z.optional(z.string().regex(/^OpenSearch_\d+\.\d+$/, 'must look like OpenSearch_2.19')),
      dataNodeInstanceType: z.optional(z.string()),
      dataNodeCount: z.optional(z.number()),
      availabilityZoneCount: z.optional(oneOf([1, 2, 3] as const)),
      ebsVolumeSizeGiB: z.optional(z.number()),
      dedicatedMasters: optionalNullable(z.strictObject({ instanceType: z.string(), count: oneOf([3, 5] as const) })),
      vectors: z.optional(
        z.strictObject({
          engine: z.optional(z.enum(['lucene', 'faiss'])),
          m: z.optional(z.number()),
          efConstruction: z.optional(z.number()),
          window: z.optional(z.number()),
        }),
      ),
    }),
  ),
  embeddings: z.optional(
    z.strictObject({
      dimensions: z.optional(oneOf([256, 512, 1024] as const)),
      semanticFloor: z.optional(z.number()),
    }),
  ),
  functions: z.optional(
    z.strictObject({
      memorySizeMb: z.optional(z.number()),
      accountConcurrencyQuota: z.optional(z.number()),
      reservedConcurrency: z.optional(
        z.strictObject(
          Object.fromEntries(FUNCTION_GROUPS.map((group) => [group, optionalNullable(z.number())])) as Record<
            FunctionGroup,
            z.ZodOptional<z.ZodNullable<z.ZodNumber>>
          >,
        ),
      ),
    }),
  ),
  api: z.optional(
    z.strictObject({
      manageAccountCloudWatchRole: z.optional(z.boolean()),
      corsOrigins: z.optional(z.array(z.string())),
      customDomain: z.optional(
        z.strictObject({
          domainName: z.string(),
          certificateArn: z.string(),
          hostedZone: z.optional(z.strictObject({ id: z.string(), name: z.string() })),
        }),
      ),
    }),
  ),
  webhooks: z.optional(z.strictObject({ deadlineScanAtUtc: z.optional(z.string()) })),
  // Checked by parseTierQuotas, the same check the functions run on TIER_QUOTAS.
  tierQuotas: z.optional(z.unknown()),
  alarms: z.optional(z.strictObject({ email: optionalNullable(z.string()), docsBaseUrl: optionalNullable(z.string()) })),
  docs: z.optional(z.strictObject({ priceClass: z.optional(z.enum(Object.values(PriceClass) as [PriceClass, ...PriceClass[]])) })),
  dashboard: z.optional(
    z.strictObject({
      domainPrefix: z.optional(z.string()),
      extraCallbackUrls: z.optional(z.array(z.string())),
      mfa: z.optional(z.enum(DASHBOARD_MFA_MODES)),
      priceClass: z.optional(z.enum(Object.values(PriceClass) as [PriceClass, ...PriceClass[]])),
    }),
  ),
  canary: z.optional(
    z.strictObject({ scheduleMinutes: z.optional(z.number()), searchTerm: z.optional(z.string()), artifactRetentionDays: z.optional(z.number()) }),
  ),
});

function stageOverridesOf(entry: unknown, where: string): StageConfigOverrides {
  const parsed = StageContextSchema.safeParse(entry);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const key = [where, ...issue.path.map(String)].join('.');
    const unknownKeys =
      issue.code === 'unrecognized_keys' ? `: ${issue.keys.join(', ')} ${issue.keys.length === 1 ? 'is not a setting' : 'are not settings'}` : '';
    throw new Error(`cdk.json context ${key}${unknownKeys || `: ${issue.message}`}`);
  }
  const { search, functions, tierQuotas, ...rest } = parsed.data;
  const reserved = Object.fromEntries(Object.entries(functions?.reservedConcurrency ?? {}).filter(([, count]) => count !== null && count !== undefined));
  return {
    ...rest,
    search: search && {
      ...search,
      engineVersion: search.engineVersion === undefined ? undefined : EngineVersion.openSearch(search.engineVersion.slice('OpenSearch_'.length)),
    },
    functions: functions && { ...functions, reservedConcurrency: functions.reservedConcurrency && reserved },
    tierQuotas: tierQuotas === undefined ? undefined : parseTierQuotas(tierQuotas, `cdk.json context ${where}.tierQuotas`),
  };
}

/**
 * The overrides cdk.json's `stages` context gives `stage` ({} for a stage it does not list: the
 * stage then gets the defaults, dev-like for dev and dev-*, prod-like otherwise). Every listed stage
 * is checked, not only this one, so a mistake in prod fails a dev synth too; errors name the key,
 * e.g. `cdk.json context stages.prod.search.dedicatedMasters.count: must be one of 3, 5`.
 */
export function stageOverridesFromContext(stages: unknown, stage: string): StageConfigOverrides {
  if (stages === undefined) return {};
  if (typeof stages !== 'object' || stages === null || Array.isArray(stages)) {
    throw new Error(`cdk.json context stages must be an object keyed by stage name, not ${JSON.stringify(stages)}`);
  }
  let selected: StageConfigOverrides = {};
  for (const [name, entry] of Object.entries(stages)) {
    const where = `stages.${name}`;
    const overrides = stageOverridesOf(entry, where);
    try {
      stageConfig(name, overrides);
    } catch (error) {
      throw new Error(`cdk.json context ${where}: ${(error as Error).message}`);
    }
    if (name === stage) selected = overrides;
  }
  return selected;
}
