import { isTierName, TIER_NAMES, TIERS, type TierName, type TierPolicy } from './tiers';

/**
 * The part of a tier a stage may change: its daily quota and its gateway throttling. The stage's
 * config (cdk.json) sets both the usage plans and, through TIER_QUOTAS, the Lambdas that count
 * the quota, so the two never disagree. Access and features stay in TIERS.
 */
export type TierQuota = Pick<TierPolicy, 'dailyQuota' | 'throttle'>;
export type TierQuotas = Readonly<Record<TierName, TierQuota>>;
export type TierPolicies = Readonly<Record<TierName, TierPolicy>>;

export const DEFAULT_TIER_QUOTAS: TierQuotas = Object.fromEntries(
  TIER_NAMES.map((tier) => [tier, { dailyQuota: TIERS[tier].dailyQuota, throttle: TIERS[tier].throttle }]),
) as Record<TierName, TierQuota>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function refuseUnknownKeys(value: Record<string, unknown>, known: readonly string[], where: string): void {
  const unknown = Object.keys(value).filter((key) => !known.includes(key));
  if (unknown.length > 0) throw new Error(`${where}.${unknown[0]} is not a setting (expected ${known.join(', ')})`);
}

function parseThrottle(value: unknown, where: string): TierQuota['throttle'] {
  if (value === null) return null;
  if (!isRecord(value)) throw new Error(`${where} must be null (not throttled) or { "rateLimit": n, "burstLimit": n }, not ${JSON.stringify(value)}`);
  refuseUnknownKeys(value, ['rateLimit', 'burstLimit'], where);
  const { rateLimit, burstLimit } = value;
  if (typeof rateLimit !== 'number' || !Number.isFinite(rateLimit) || rateLimit <= 0) {
    throw new Error(`${where}.rateLimit must be a number of requests per second above 0, not ${JSON.stringify(rateLimit)}`);
  }
  if (typeof burstLimit !== 'number' || !Number.isInteger(burstLimit) || burstLimit < 1) {
    throw new Error(`${where}.burstLimit must be a whole number of requests of at least 1, not ${JSON.stringify(burstLimit)}`);
  }
  return { rateLimit, burstLimit };
}

function parseTierQuota(value: unknown, where: string): TierQuota {
  if (!isRecord(value)) throw new Error(`${where} must be { "dailyQuota": n | null, "throttle": {...} | null }, not ${JSON.stringify(value)}`);
  refuseUnknownKeys(value, ['dailyQuota', 'throttle'], where);
  const { dailyQuota } = value;
  if (dailyQuota !== null && (typeof dailyQuota !== 'number' || !Number.isInteger(dailyQuota) || dailyQuota < 0)) {
    throw new Error(`${where}.dailyQuota must be a whole number of requests a day (0 or more), or null for unlimited, not ${JSON.stringify(dailyQuota)}`);
  }
  if (!('throttle' in value)) throw new Error(`${where}.throttle is required (null: not throttled)`);
  return { dailyQuota, throttle: parseThrottle(value.throttle, `${where}.throttle`) };
}

/**
 * Validates quotas for some or all tiers (a tier left out keeps its default). Throws an error that
 * names the bad key under `where`, e.g. `stages.prod.tierQuotas.basic.dailyQuota`.
 */
export function parseTierQuotas(value: unknown, where: string): Partial<Record<TierName, TierQuota>> {
  if (!isRecord(value)) throw new Error(`${where} must be an object keyed by tier (${TIER_NAMES.join(', ')}), not ${JSON.stringify(value)}`);
  const quotas: Partial<Record<TierName, TierQuota>> = {};
  for (const [tier, quota] of Object.entries(value)) {
    if (!isTierName(tier)) throw new Error(`${where}.${tier} is not a tier (expected ${TIER_NAMES.join(', ')})`);
    quotas[tier] = parseTierQuota(quota, `${where}.${tier}`);
  }
  return quotas;
}

/** Every tier's quota: the defaults (TIERS) with `overrides` on top. */
export function tierQuotasWith(overrides: Partial<Record<TierName, TierQuota>> = {}): TierQuotas {
  return Object.fromEntries(TIER_NAMES.map((tier) => [tier, overrides[tier] ?? DEFAULT_TIER_QUOTAS[tier]])) as Record<TierName, TierQuota>;
}

/** TIERS with the given quotas in place of the defaults. */
export function tierPoliciesWith(quotas: Partial<Record<TierName, TierQuota>>): TierPolicies {
  return Object.fromEntries(TIER_NAMES.map((tier) => [tier, { ...TIERS[tier], ...quotas[tier] }])) as Record<TierName, TierPolicy>;
}
