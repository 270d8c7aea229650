import type { TierPolicies } from '../core/auth/tier-quotas';
import type { TierName } from '../core/auth/tiers';
import type { DestinationMode } from '../core/webhooks/destination-policy';
import type { AccountStore } from './account-store';
import type { Clock } from './clock';
import type { HostResolver } from './host-resolver';
import type { IdentityVerifier } from './identity-verifier';
import type { KeyStore } from './key-store';
import type { RequestLog } from './request-log';
import type { UsageMeter } from './usage-meter';
import type { WebhookStore } from './webhook-store';

/** The ports of the account API (the developer dashboard's), built once per cold start by a composition root. */
export interface AccountServices {
  accounts: AccountStore;
  keys: KeyStore;
  meter: UsageMeter;
  requestLog: RequestLog;
  /** Webhook subscriptions, read only here: secrets are never shown, and in AWS never unsealed. */
  webhooks: WebhookStore;
  /** Checks a webhook's destination again when it is turned back on. */
  resolver: HostResolver;
  /** https to public addresses only ('aws'), or plain http to loopback too ('local'). */
  destinationMode: DestinationMode;
  /** Checks the ID token of `Authorization: Bearer <jwt>` (never an API key). */
  identity: IdentityVerifier;
  clock: Clock;
  /** The tiers' quotas this deployment enforces; TIERS when absent. */
  tiers?: TierPolicies;
  /** The plan of an account made at its owner's first sign-in (DEFAULT_PLAN when absent). */
  defaultPlan?: TierName;
}

export type AccountServicesProvider = () => AccountServices;
