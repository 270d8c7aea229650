import type { components } from './account-api-types';
import { ApiError, errorBodyOf } from './api-errors';
import type { AccountUsage } from './usage-model';

/** The account API, called with the signed-in person's ID token as Bearer (docs/dashboard.md). */

/** The shapes of docs/account-api.json, generated into account-api-types.ts (`npm run openapi:account`). */
type Schemas = components['schemas'];
export type Account = Schemas['Account'];
export type AccountKey = Schemas['Key'];
export type KeyList = Schemas['KeyList'];
export type CreatedKey = Schemas['IssuedKey'];
export type AuditPage = Schemas['AuditPage'];
export type AuditEntry = AuditPage['entries'][number];
export type RequestLogPage = Schemas['RequestLog'];
export type RequestLogEntry = RequestLogPage['entries'][number];
/** A webhook subscription as the account API lists it (never its secrets). */
export type Webhook = Schemas['Webhook'];

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
    return this.call<RequestLogPage>('GET', `/keys/${encodeURIComponent(keyId)}/requests?${params}`);
  }

  audit(page: { limit: number; before?: string | null }) {
    const params = new URLSearchParams({ limit: String(page.limit) });
    if (page.before) params.set('before', page.before);
    return this.call<AuditPage>('GET', `/audit?${params}`);
  }

  webhooks = () => this.call<Schemas['WebhookList']>('GET', '/webhooks');
  setWebhookState = (id: string, state: 'active' | 'disabled') => this.call<Webhook>('PATCH', `/webhooks/${encodeURIComponent(id)}`, { state });
}
