import type { AccountStore } from '../../ports/account-store';
import type { HostResolver } from '../../ports/host-resolver';
import { type ApiKeyRecord, KeyStateConflict, type KeyStore } from '../../ports/key-store';
import type { UsageMeter } from '../../ports/usage-meter';
import { WebhookConflict, type WebhookStore, type WebhookSubscription } from '../../ports/webhook-store';
import type { Account } from '../accounts/account';
import type { AuditEntry } from '../accounts/audit';
import type { TierPolicies } from '../auth/tier-quotas';
import { TIERS, type TierName } from '../auth/tiers';
import { conflict, notFound, ServiceError } from '../errors';
import { type DestinationMode, DestinationRefused } from '../webhooks/destination-policy';
import { accountKey, audit, createAccountKey, type Making, revokeAccountKey, rotateAccountKey } from './manage-accounts';
import { disableSubscription, enableSubscription, type ListedSubscription, listedSubscription } from './manage-webhooks';

/**
 * What an account's owner does from the developer dashboard (the account API): their account and
 * plan, their keys (a cap on live ones), and their audit log. Every id is checked against the
 * caller's account first (another account's is a 404, manage-accounts.ts accountKey).
 */

/** Live (unrevoked) keys an account may hold: enough for every environment, few enough to review. */
export const MAX_LIVE_KEYS = 20;
/** The longest grace an owner may give an old key at rotation: a week (operators may give more). */
export const MAX_OWNER_GRACE_HOURS = 168;

export interface OwnerPorts {
  accounts: AccountStore;
  keys: KeyStore;
  meter: UsageMeter;
  tiers?: TierPolicies;
}

export interface OwnerWebhookPorts {
  keys: KeyStore;
  webhooks: WebhookStore;
}

export interface PlanLimits {
  api_access: boolean;
  /** Requests per UTC day; null is unlimited. */
  daily_quota: number | null;
  matching: boolean;
  webhooks: boolean;
  /** Steady requests per second and burst; null is not throttled. */
  rate: { per_second: number; burst: number } | null;
}

export interface AccountView {
  account_id: string;
  owner_email: string;
  plan: TierName;
  limits: PlanLimits;
  created_at: string;
  updated_at: string;
}

export function planLimits(plan: TierName, tiers: TierPolicies = TIERS): PlanLimits {
  const policy = tiers[plan];
  return {
    api_access: policy.apiAccess,
    daily_quota: policy.dailyQuota,
    matching: policy.matching,
    webhooks: policy.webhooks,
    rate: policy.throttle ? { per_second: policy.throttle.rateLimit, burst: policy.throttle.burstLimit } : null,
  };
}

export function accountView(account: Account, tiers?: TierPolicies): AccountView {
  return {
    account_id: account.account_id,
    owner_email: account.owner_email,
    plan: account.plan,
    limits: planLimits(account.plan, tiers),
    created_at: account.created_at,
    updated_at: account.updated_at,
  };
}

/** A key as its owner sees it: never its hashes, owner string or legacy gateway key. */
export interface KeyView {
  key_id: string;
  prefix: string;
  label: string;
  tier: TierName;
  created_at: string;
  rotated_at: string | null;
  previous_valid_until: string | null;
  revoked_at: string | null;
  /** The last request counted today or earlier in the meter's latest day; null when none. */
  last_used_at: string | null;
}

export function keyView(record: ApiKeyRecord, lastUsedAt: string | null = null): KeyView {
  return {
    key_id: record.key_id,
    prefix: record.prefix,
    label: record.label,
    tier: record.tier,
    created_at: record.created_at,
    rotated_at: record.rotated_at,
    previous_valid_until: record.previous_valid_until,
    revoked_at: record.revoked_at,
    last_used_at: lastUsedAt,
  };
}

export interface KeyList {
  keys: KeyView[];
  /** Whether the plan's keys may call the API; a free plan's may not (403 on every data route). */
  api_access: boolean;
  /** Set when the keys cannot call the API, saying why, for the dashboard to show. */
  notice: string | null;
  live_keys: number;
  max_live_keys: number;
}

export async function listOwnerKeys(ports: OwnerPorts, account: Account): Promise<KeyList> {
  const records = await ports.keys.listByAccount(account.account_id);
  const keys = await Promise.all(records.map(async (r) => keyView(r, (await ports.meter.history(r.key_id, 1))[0]?.lastUsedAt ?? null)));
  const apiAccess = (ports.tiers ?? TIERS)[account.plan].apiAccess;
  return {
    keys,
    api_access: apiAccess,
    notice: apiAccess ? null : `The ${account.plan} plan has no API access: its keys are refused (403) until the plan changes`,
    live_keys: records.filter((r) => r.revoked_at === null).length,
    max_live_keys: MAX_LIVE_KEYS,
  };
}

/** A new key and its value, shown once (null when an idempotent retry answers with the key made first). */
export interface IssuedKeyView {
  key: KeyView;
  api_key: string | null;
}

/**
 * A key of the owner's account on its plan; a 409 when MAX_LIVE_KEYS are live (a retry of the
 * create that reached the cap too: the key it made is in the list). The cap is read, then written
 * (dynalite has no transactions), so two creates racing at the cap may pass it by one.
 */
export async function createOwnerKey(
  ports: OwnerPorts,
  account: Account,
  request: { label: string; idempotencyKey?: string },
  making: Making,
): Promise<IssuedKeyView & { replayed: boolean }> {
  const live = (await ports.keys.listByAccount(account.account_id)).filter((r) => r.revoked_at === null).length;
  if (live >= MAX_LIVE_KEYS) throw conflict(`An account holds at most ${MAX_LIVE_KEYS} live keys: revoke one first`);
  try {
    const issued = await createAccountKey(ports, account.account_id, request, 'owner', making);
    return { key: keyView(issued.record), api_key: issued.key, replayed: issued.replayed };
  } catch (error) {
    if (error instanceof KeyStateConflict) throw conflict(error.message);
    throw error;
  }
}

export async function rotateOwnerKey(ports: OwnerPorts, account: Account, keyId: string, graceHours: number, making: Making): Promise<IssuedKeyView> {
  await accountKey(ports.keys, account.account_id, keyId);
  try {
    const issued = await rotateAccountKey(ports, account.account_id, keyId, graceHours, 'owner', making);
    return { key: keyView(issued.record), api_key: issued.key };
  } catch (error) {
    if (error instanceof KeyStateConflict) throw conflict(error.message);
    throw error;
  }
}

export async function revokeOwnerKey(ports: OwnerPorts, account: Account, keyId: string, now: Date): Promise<KeyView> {
  return keyView(await revokeAccountKey(ports, account.account_id, keyId, 'owner', now));
}

export interface AuditPage {
  entries: Omit<AuditEntry, 'account_id'>[];
  next_cursor: string | null;
}

export async function readOwnerAudit(accounts: AccountStore, account: Account, page: { limit: number; before?: string }): Promise<AuditPage> {
  const { items, next } = await accounts.listAudit(account.account_id, page);
  return { entries: items.map(({ account_id: _own, ...entry }) => entry), next_cursor: next };
}

/** A webhook subscription as its owner sees it: never its secrets. */
export type WebhookView = ListedSubscription;

/** The subscriptions of the account's keys, oldest first. */
export async function listOwnerWebhooks(ports: OwnerWebhookPorts, account: Account, now: Date): Promise<{ webhooks: WebhookView[] }> {
  const keyIds = new Set((await ports.keys.listByAccount(account.account_id)).map((key) => key.key_id));
  if (keyIds.size === 0) return { webhooks: [] };
  const subscriptions = (await ports.webhooks.list()).filter((subscription) => keyIds.has(subscription.key_id));
  return { webhooks: subscriptions.map((subscription) => listedSubscription(subscription, now)) };
}

/** One subscription of the account's keys; another account's, or none, is a 404. */
export async function ownerWebhook(ports: OwnerWebhookPorts, account: Account, subscriptionId: string, now: Date): Promise<WebhookView> {
  const subscription = await ports.webhooks.get(subscriptionId);
  const key = subscription ? await ports.keys.get(subscription.key_id) : null;
  if (!subscription || key?.account_id !== account.account_id) throw notFound('webhook', subscriptionId);
  return listedSubscription(subscription, now);
}

/**
 * Turns a subscription of the account off or on (again: no change, nothing audited). Turning it on
 * checks the plan (403 without webhooks), the key and the destination again, as an operator's
 * enable does; a destination no longer allowed, or a revoked key, is a 409.
 */
export async function setOwnerWebhookState(
  ports: OwnerWebhookPorts & { accounts: AccountStore; resolver: HostResolver; tiers?: TierPolicies },
  account: Account,
  subscriptionId: string,
  state: 'active' | 'disabled',
  mode: DestinationMode,
  now: Date,
): Promise<WebhookView> {
  const current = await ownerWebhook(ports, account, subscriptionId, now);
  if (current.state === state) return current;
  let changed: WebhookSubscription;
  try {
    if (state === 'disabled') changed = await disableSubscription(ports.webhooks, subscriptionId, 'disabled by the owner', now);
    else {
      if (!(ports.tiers ?? TIERS)[account.plan].webhooks) throw new ServiceError(403, 'FORBIDDEN', `The ${account.plan} plan has no webhooks`);
      changed = await enableSubscription(ports, subscriptionId, mode, now);
    }
  } catch (error) {
    if (error instanceof WebhookConflict || error instanceof DestinationRefused) throw conflict(error.message);
    throw error;
  }
  await audit(
    ports.accounts,
    account.account_id,
    { actor: 'owner', action: state === 'active' ? 'webhook.enabled' : 'webhook.disabled', target: subscriptionId },
    now,
  );
  return listedSubscription(changed, now);
}
