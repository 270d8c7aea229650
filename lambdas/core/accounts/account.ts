import { createHash } from 'node:crypto';
import { type RandomBytes, randomBase62 } from '../auth/api-keys';
import { isTierName, TIER_NAMES, type TierName } from '../auth/tiers';
import { invalidParameters } from '../errors';

/**
 * An account: who owns it (a verified e-mail, unique across accounts), its plan (the tier its keys
 * are on) and when it changed. Keys and, through them, webhooks belong to it (DESIGN.md section 3).
 */
export interface Account {
  /** `acct_` and 16 base62 characters. */
  account_id: string;
  /** Lower-cased; the e-mail a sign-in's verified token carries. */
  owner_email: string;
  plan: TierName;
  created_at: string;
  updated_at: string;
  /**
   * Set on accounts the key migration made for an owner string that is not an e-mail: owner_email
   * is then derived from it (derivedOwnerEmail) and no one can sign in to the account until an
   * operator moves its keys to a real owner's account.
   */
  legacy_owner?: string;
}

/** The plan a new account gets unless an operator names another. */
export const DEFAULT_PLAN: TierName = 'basic';

const ACCOUNT_ID_PATTERN = /^acct_[0-9A-Za-z]{16}$/;
// Deliberately plain (what sign-up forms accept): one @, no spaces, a dotted domain; RFC 5321's length cap.
const EMAIL_PATTERN = /^[^\s@<>()[\]\\,;:"]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/;
const MAX_EMAIL_LENGTH = 254;
/** The reserved top-level domain (RFC 2606) of derived owner e-mails: never deliverable, never a sign-in. */
export const DERIVED_OWNER_DOMAIN = 'legacy-owner.invalid';

export function generateAccountId(randomBytes: RandomBytes): string {
  return `acct_${randomBase62(16, randomBytes)}`;
}

export function isAccountId(value: string): boolean {
  return ACCOUNT_ID_PATTERN.test(value);
}

/** The e-mail trimmed and lower-cased, or null when it is not a plausible address. */
export function normalisedEmail(raw: string): string | null {
  const email = raw.trim().toLowerCase();
  return email.length <= MAX_EMAIL_LENGTH && EMAIL_PATTERN.test(email) ? email : null;
}

/** normalisedEmail, or a 400 naming `field`. */
export function ownerEmailOf(raw: unknown, field = 'owner_email'): string {
  const email = typeof raw === 'string' ? normalisedEmail(raw) : null;
  if (email === null) throw invalidParameters([{ field, issue: 'must be an e-mail address such as dev@example.org' }]);
  return email;
}

/** The plan, or a 400 naming the tiers. */
export function planOf(raw: unknown, field = 'plan'): TierName {
  if (!isTierName(raw)) throw invalidParameters([{ field, issue: `must be one of ${TIER_NAMES.join(', ')}` }]);
  return raw;
}

/**
 * The owner e-mail of a legacy owner string that is not an e-mail ("acme", "team data"): a
 * readable slug and a hash of the exact string, so the same owner always maps to the same account
 * and two owners that slug alike do not share one.
 */
export function derivedOwnerEmail(owner: string): string {
  const slug =
    owner
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40) || 'owner';
  const digest = createHash('sha256').update(owner).digest('hex').slice(0, 12);
  return `${slug}-${digest}@${DERIVED_OWNER_DOMAIN}`;
}

/** The account owner a key's `owner` string names: its e-mail, or a derived one (flagged) when it is not an e-mail. */
export function ownerOfKeyOwner(owner: string): { owner_email: string; legacy_owner?: string } {
  const email = normalisedEmail(owner);
  return email !== null ? { owner_email: email } : { owner_email: derivedOwnerEmail(owner), legacy_owner: owner };
}

export function newAccount(request: { owner_email: string; plan?: TierName; legacy_owner?: string }, randomBytes: RandomBytes, now: Date): Account {
  const at = now.toISOString();
  return {
    account_id: generateAccountId(randomBytes),
    owner_email: request.owner_email,
    plan: request.plan ?? DEFAULT_PLAN,
    created_at: at,
    updated_at: at,
    ...(request.legacy_owner === undefined ? {} : { legacy_owner: request.legacy_owner }),
  };
}

/** Tiers from least to most: the migration gives a new account the highest tier among its owner's keys. */
export function highestTier(tiers: readonly TierName[]): TierName | null {
  let best: TierName | null = null;
  for (const tier of tiers) if (best === null || TIER_NAMES.indexOf(tier) > TIER_NAMES.indexOf(best)) best = tier;
  return best;
}
