import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_LIVE_KEYS } from '../../lambdas/core/use-cases/account-self-service';
import { setAccountPlan } from '../../lambdas/core/use-cases/manage-accounts';
import { type AccountApiServer, startAccountApiServer } from '../support/account-api-server';

/**
 * The account API over real HTTP, continued: what a plan allows (API access, webhooks), the cap
 * on live keys, and the subscriptions of an account's keys.
 */

let api: AccountApiServer;
let ada: string;

beforeAll(async () => {
  api = await startAccountApiServer();
  ada = await api.idTokenFor('ada@example.org');
}, 60_000);
afterAll(async () => api?.close());

describe('plans and caps', () => {
  it('says in the key list that a free plan has no API access, and its keys are refused with 403', async () => {
    const token = await api.idTokenFor('free.plan@example.org');
    const { body: account } = await api.call('GET', '/account', { token });
    const { body: issued } = await api.call('POST', '/account/keys', { token, body: { label: 'before the change' } });
    await setAccountPlan({ accounts: api.stack.accounts, keys: api.stack.services.keys }, account.account_id, 'free', 'operator', new Date());
    expect((await api.call('GET', '/account', { token })).body.limits).toEqual({
      api_access: false,
      daily_quota: 0,
      matching: false,
      webhooks: false,
      rate: null,
    });
    const listed = await api.call('GET', '/account/keys', { token });
    expect(listed.body.api_access).toBe(false);
    expect(listed.body.notice).toContain('free plan has no API access');
    expect(listed.body.keys[0].tier).toBe('free');
    const refused = await fetch(`${api.baseUrl}/grants-api?limit=1`, { headers: { Authorization: `Bearer ${issued.api_key}` } });
    expect(refused.status).toBe(403);
  });

  it('refuses a key beyond 20 live ones with 409, and takes one again after a revocation', async () => {
    const token = await api.idTokenFor('many.keys@example.org');
    const made: string[] = [];
    for (let i = 0; i < MAX_LIVE_KEYS; i++) made.push((await api.call('POST', '/account/keys', { token, body: { label: `key ${i}` } })).body.key.key_id);
    const over = await api.call('POST', '/account/keys', { token, body: { label: 'one too many' } });
    expect(over.status).toBe(409);
    expect(over.body.error).toMatchObject({ code: 'CONFLICT', message: 'An account holds at most 20 live keys: revoke one first' });
    await api.call('POST', `/account/keys/${made[0]}/revoke`, { token });
    expect((await api.call('POST', '/account/keys', { token, body: { label: 'replacement' } })).status).toBe(201);
    expect((await api.call('GET', '/account/keys', { token })).body).toMatchObject({ live_keys: 20, max_live_keys: 20 });
  });
});

describe('webhooks', () => {
  it("lists and shows the subscriptions of the account's keys without secrets; another account's answer 404", async () => {
    const token = await api.idTokenFor('hooks@example.org');
    const { body: account } = await api.call('GET', '/account', { token });
    await setAccountPlan({ accounts: api.stack.accounts, keys: api.stack.services.keys }, account.account_id, 'developer', 'operator', new Date());
    const { body: issued } = await api.call('POST', '/account/keys', { token, body: { label: 'hooks' } });
    const at = new Date().toISOString();
    await api.stack.webhooks.create({
      subscription_id: 'whk_0123456789abcdef0123456789abcdef',
      key_id: issued.key.key_id,
      url: 'http://127.0.0.1:9/hook',
      events: ['grant.created'],
      days_before: 7,
      filter: null,
      state: 'active',
      disabled_reason: null,
      secret: 'whsec_not-to-be-shown-anywhere',
      previous_secret: null,
      previous_secret_valid_until: null,
      created_at: at,
      updated_at: at,
    });
    const listed = await api.call('GET', '/account/webhooks', { token });
    expect(listed.status).toBe(200);
    expect(listed.body.webhooks).toEqual([
      expect.objectContaining({
        subscription_id: 'whk_0123456789abcdef0123456789abcdef',
        key_id: issued.key.key_id,
        events: ['grant.created'],
        rotating: false,
      }),
    ]);
    const one = await api.call('GET', '/account/webhooks/whk_0123456789abcdef0123456789abcdef', { token });
    expect(one.body).toEqual(listed.body.webhooks[0]);
    expect(JSON.stringify([listed.body, one.body])).not.toContain('whsec_');
    expect((await api.call('GET', '/account/webhooks', { token: ada })).body.webhooks).toEqual([]);
    const foreign = await api.call('GET', '/account/webhooks/whk_0123456789abcdef0123456789abcdef', { token: ada });
    expect(foreign.status).toBe(404);
    expect((await api.call('GET', '/account/webhooks/whk_missing', { token })).status).toBe(404);
  });

  it('turns a subscription off and on as its owner (audited), refuses other accounts, bad states and plans without webhooks', async () => {
    const token = await api.idTokenFor('hooks@example.org');
    const path = '/account/webhooks/whk_0123456789abcdef0123456789abcdef';
    const off = await api.call('PATCH', path, { token, body: { state: 'disabled' } });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ state: 'disabled', disabled_reason: 'disabled by the owner' });
    expect((await api.call('PATCH', path, { token, body: { state: 'disabled' } })).body.updated_at).toBe(off.body.updated_at);
    expect((await api.call('PATCH', path, { token: ada, body: { state: 'active' } })).status).toBe(404);
    const bad = await api.call('PATCH', path, { token, body: { state: 'paused' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual([{ field: 'state', issue: 'must be active or disabled' }]);
    const on = await api.call('PATCH', path, { token, body: { state: 'active' } });
    expect(on.status).toBe(200);
    expect(on.body).toMatchObject({ state: 'active', disabled_reason: null });
    const audit = await api.call('GET', '/account/audit?limit=2', { token });
    expect(audit.body.entries.map((e: { action: string; target: string }) => [e.action, e.target])).toEqual([
      ['webhook.enabled', 'whk_0123456789abcdef0123456789abcdef'],
      ['webhook.disabled', 'whk_0123456789abcdef0123456789abcdef'],
    ]);

    await api.call('PATCH', path, { token, body: { state: 'disabled' } });
    const { body: account } = await api.call('GET', '/account', { token });
    await setAccountPlan({ accounts: api.stack.accounts, keys: api.stack.services.keys }, account.account_id, 'basic', 'operator', new Date());
    const refused = await api.call('PATCH', path, { token, body: { state: 'active' } });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'FORBIDDEN', message: 'The basic plan has no webhooks' });
  });
});
