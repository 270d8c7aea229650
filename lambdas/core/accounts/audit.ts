import { API_KEY_PREFIX } from '../auth/api-keys';
import { SECRET_PREFIX } from '../webhooks/signature';

/**
 * An account's audit log: who did what to which of its things, newest first. Entries hold ids and
 * small facts only, never a key, secret, token or e-mail address (the log is shown to the owner
 * and may be copied into support tickets).
 */

export const AUDIT_ACTORS = ['owner', 'operator', 'system'] as const;
export type AuditActor = (typeof AUDIT_ACTORS)[number];

export const AUDIT_ACTIONS = [
  'account.created',
  'plan.changed',
  'key.created',
  'key.rotated',
  'key.revoked',
  'key.tier_changed',
  'key.joined_account',
  'webhook.created',
  'webhook.enabled',
  'webhook.disabled',
  'webhook.secret_rotated',
  'webhook.tested',
  'webhook.replayed',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export type AuditDetail = Readonly<Record<string, string | number | boolean | null>>;

export interface AuditEntry {
  account_id: string;
  /** ISO time. */
  at: string;
  actor: AuditActor;
  action: AuditAction;
  /** The id of what the action was on (a key, a webhook, the account). */
  target: string;
  detail: AuditDetail;
}

const MAX_DETAIL_FIELDS = 8;
const MAX_DETAIL_STRING = 200;
const SECRET_LOOKING = [API_KEY_PREFIX, SECRET_PREFIX, 'eyJ'];

export class InvalidAuditEntry extends Error {}

/**
 * An entry, checked: a detail of a few flat fields, none of which looks like a key, a webhook
 * secret, a JWT or an e-mail address. A caller that passes one has a bug; it must not reach the log.
 */
export function auditEntry(entry: AuditEntry): AuditEntry {
  const fields = Object.entries(entry.detail);
  if (fields.length > MAX_DETAIL_FIELDS) throw new InvalidAuditEntry(`an audit detail holds at most ${MAX_DETAIL_FIELDS} fields`);
  for (const [name, value] of fields) {
    if (value !== null && !['string', 'number', 'boolean'].includes(typeof value)) throw new InvalidAuditEntry(`audit detail ${name} must be a flat value`);
    if (typeof value !== 'string') continue;
    if (value.length > MAX_DETAIL_STRING) throw new InvalidAuditEntry(`audit detail ${name} is longer than ${MAX_DETAIL_STRING} characters`);
    if (SECRET_LOOKING.some((prefix) => value.includes(prefix)) || value.includes('@'))
      throw new InvalidAuditEntry(`audit detail ${name} looks like a secret, token or e-mail address`);
  }
  return { ...entry, detail: { ...entry.detail } };
}
