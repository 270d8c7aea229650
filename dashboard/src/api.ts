import { ApiError, errorBodyOf } from './api-errors';
import type { PlanLimits } from './format';
import type { AccountUsage } from './usage-model';

/** The account API, called with the signed-in person's ID token as Bearer (docs/dashboard.md). */

/** The shapes of docs/account-api.json (lambdas/core/use-cases/account-self-service.ts). */
export interface Account {
  account_id: string;
  owner_email: string;
  plan: string;
  limits: PlanLimits;
  created_at: string;
  updated_at: string;
}

export interface AccountKey {
  key_id: string;
  prefix: string;
  label: string;
  tier: string;
  created_at: string;
  rotated_at: string | null;
  previous_valid_until: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
}

export interface KeyList {
  keys: AccountKey[];
  api_access: boolean;
  /** Why the keys cannot call the API, when they cannot. */
  notice: string | null;
  live_keys: number;
  max_live_keys: number;
}

export interface CreatedKey {
  key: AccountKey;
  /** Null when a retried create answers with the key its first attempt made. */
  api_key: string | null;
}

export interface AuditPage {
  entries: AuditEntry[];
  next_cursor: string | null;
}

export interface RequestLogEntry {
  at: string;
  method: string;
  path: string;
  status: number;
  latency_ms: number;
  request_id: string;
}

export interface AuditEntry {
  at: string;
  actor: string;
  action: string;
  target: string;
  detail: Record<string, unknown>;
}

export type TokenSource = () => Promise<string | null>;

export class AccountApi {
  constructor(
    private readonly baseUrl: string,
    private readonly token: TokenSource,
    private readonly onUnauthorized: () => void = () => {},
  ) {}

  private async call<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
    const token = await this.token();
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        accept: 'application/json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'omit',
    });
    const json = await response.json().catch(() => null);
    if (!response.ok) {
      if (response.status === 401) this.onUnauthorized();
      throw new ApiError(response.status, errorBodyOf(json));
    }
    return json as T;
  }

  account = () => this.call<Account>('GET', '');
  keys = () => this.call<KeyList>('GET', '/keys');
  createKey = (label: string, idempotencyKey: string) => this.call<CreatedKey>('POST', '/keys', { label }, { 'Idempotency-Key': idempotencyKey });
  rotateKey = (keyId: string, graceHours: number) => this.call<CreatedKey>('POST', `/keys/${encodeURIComponent(keyId)}/rotate`, { grace_hours: graceHours });
  revokeKey = (keyId: string) => this.call<AccountKey>('POST', `/keys/${encodeURIComponent(keyId)}/revoke`);

  usage(query: { granularity: 'day' | 'hour'; days: number; keyId?: string }) {
    const params = new URLSearchParams({ granularity: query.granularity, days: String(query.days) });
    if (query.keyId) params.set('key_id', query.keyId);
    return this.call<AccountUsage>('GET', `/usage?${params}`);
  }

  requests(keyId: string, page: { limit: number; cursor?: string | null }) {
    const params = new URLSearchParams({ limit: String(page.limit) });
    if (page.cursor) params.set('cursor', page.cursor);
    return this.call<{ entries: RequestLogEntry[]; next_cursor: string | null }>('GET', `/keys/${encodeURIComponent(keyId)}/requests?${params}`);
  }

  audit(page: { limit: number; before?: string | null }) {
    const params = new URLSearchParams({ limit: String(page.limit) });
    if (page.before) params.set('before', page.before);
    return this.call<AuditPage>('GET', `/audit?${params}`);
  }

  webhooks = () => this.call<{ webhooks: Webhook[] }>('GET', '/webhooks');
  setWebhookState = (id: string, state: 'active' | 'disabled') => this.call<Webhook>('PATCH', `/webhooks/${encodeURIComponent(id)}`, { state });
}

/** A webhook subscription as the account API lists it (never its secrets). */
export interface Webhook {
  subscription_id: string;
  key_id: string;
  url: string;
  events: string[];
  days_before: number;
  filter?: string | null;
  state: 'active' | 'disabled';
  disabled_reason: string | null;
  /** The previous secret still signs beside the new one. */
  rotating: boolean;
  created_at: string;
}
