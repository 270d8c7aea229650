import { useState } from 'preact/hooks';
import type { Webhook } from '../api';
import { plainError } from '../api-errors';
import { formatTime } from '../format';
import { issuedSecret, normaliseFilter, testOutcome, WEBHOOK_EVENTS, webhookList } from '../webhook-shapes';
import { useSession } from './app';
import { NewKey } from './new-key';
import { useLoad } from './use-load';

const SECRET_WHY = 'Use it to check the signature of each delivery; rotate the secret if you lose it.';

/** Webhooks, when the plan has them (the list is not asked for otherwise). */
export function WebhooksView() {
  const { api } = useSession();
  const account = useLoad(() => api.account(), []);
  if (account.error) return <p role="alert">{account.error}</p>;
  if (!account.data) return <p>Loading…</p>;
  if (!account.data.limits.webhooks) {
    return (
      <section aria-labelledby="webhooks-heading">
        <h1 id="webhooks-heading">Webhooks</h1>
        <p>Your plan ({account.data.plan}) does not include webhooks.</p>
      </section>
    );
  }
  return <WebhookManager />;
}

/** Add (events, saved-search filter), list, enable or disable, rotate the secret, send a test. */
function WebhookManager() {
  const { api, announce } = useSession();
  const keys = useLoad(() => api.keys(), []);
  const list = useLoad(() => api.webhooks(), []);
  const [error, setError] = useState<string | null>(null);
  const [secret, setSecret] = useState<{ title: string; value: string } | null>(null);
  const [form, setForm] = useState({ keyId: '', url: '', events: ['grant.created'] as string[], daysBefore: '', filter: '' });
  const [busy, setBusy] = useState(false);

  async function act(work: () => Promise<void>) {
    setBusy(true);
    setError(null);
    try {
      await work();
    } catch (e) {
      setError(plainError(e));
    } finally {
      setBusy(false);
    }
  }
  const liveKeys = (keys.data?.keys ?? []).filter((k) => !k.revoked_at);
  const keyId = form.keyId || liveKeys[0]?.key_id || '';

  const add = (event: Event) => {
    event.preventDefault();
    return act(async () => {
      const { webhook, secret: value } = issuedSecret(
        await api.addWebhook({
          key_id: keyId,
          url: form.url.trim(),
          events: form.events,
          ...(form.daysBefore ? { days_before: Number(form.daysBefore) } : {}),
          ...(normaliseFilter(form.filter) ? { filter: normaliseFilter(form.filter) } : {}),
        }),
      );
      if (value) setSecret({ title: `The signing secret of ${webhook?.url ?? 'the new webhook'}`, value });
      announce('Webhook added.');
      setForm({ ...form, url: '', filter: '', daysBefore: '' });
      list.reload();
    });
  };
  const toggle = (w: Webhook) =>
    act(async () => {
      const next = w.state === 'active' ? 'disabled' : 'active';
      await api.setWebhookState(w.subscription_id, next);
      announce(`Webhook ${next === 'active' ? 'enabled' : 'disabled'}.`);
      list.reload();
    });
  const rotate = (w: Webhook) =>
    act(async () => {
      const { secret: value } = issuedSecret(await api.rotateWebhookSecret(w.subscription_id));
      if (value) setSecret({ title: `The new signing secret of ${w.url}`, value });
      announce('Secret rotated.');
    });
  const test = (w: Webhook) => act(async () => announce(testOutcome(await api.testWebhook(w.subscription_id))));

  const webhooks = list.data ? webhookList(list.data) : [];
  const toggleEvent = (name: string, on: boolean) => setForm({ ...form, events: on ? [...form.events, name] : form.events.filter((e) => e !== name) });
  return (
    <section aria-labelledby="webhooks-heading">
      <h1 id="webhooks-heading">Webhooks</h1>
      {secret && <NewKey title={secret.title} apiKey={secret.value} valueLabel="Signing secret" why={SECRET_WHY} onDone={() => setSecret(null)} />}
      {(error || list.error) && <p role="alert">{error ?? list.error}</p>}
      <form onSubmit={add} class="create-key">
        <h2>Add a webhook</h2>
        <label for="webhook-url">Receiver URL</label>
        <input
          id="webhook-url"
          type="url"
          required
          value={form.url}
          onInput={(e) => setForm({ ...form, url: (e.target as HTMLInputElement).value })}
          size={48}
        />
        <label for="webhook-key">Key</label>
        <select id="webhook-key" value={keyId} onChange={(e) => setForm({ ...form, keyId: (e.target as HTMLSelectElement).value })}>
          {liveKeys.map((k) => (
            <option key={k.key_id} value={k.key_id}>
              {k.label}
            </option>
          ))}
        </select>
        <fieldset>
          <legend>Events</legend>
          {WEBHOOK_EVENTS.map((name) => (
            <label key={name} class="choice">
              <input type="checkbox" checked={form.events.includes(name)} onChange={(e) => toggleEvent(name, (e.target as HTMLInputElement).checked)} />
              {name}
            </label>
          ))}
        </fieldset>
        <label for="webhook-days">Days before a deadline</label>
        <input
          id="webhook-days"
          type="number"
          min={1}
          max={90}
          value={form.daysBefore}
          onInput={(e) => setForm({ ...form, daysBefore: (e.target as HTMLInputElement).value })}
        />
        <label for="webhook-filter">Saved search</label>
        <input
          id="webhook-filter"
          value={form.filter}
          onInput={(e) => setForm({ ...form, filter: (e.target as HTMLInputElement).value })}
          aria-describedby="webhook-filter-hint"
          size={40}
        />
        <span id="webhook-filter-hint" class="hint">
          Optional: list parameters such as <code>q=water&amp;status=posted</code>; only matching records are sent.
        </span>
        <button type="submit" disabled={busy || liveKeys.length === 0 || form.events.length === 0}>
          Add webhook
        </button>
      </form>
      <h2>Your webhooks</h2>
      {list.data && webhooks.length === 0 && <p>No webhooks yet.</p>}
      {webhooks.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Receiver</th>
              <th scope="col">Events</th>
              <th scope="col">State</th>
              <th scope="col">Created</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {webhooks.map((w) => (
              <tr key={w.subscription_id}>
                <th scope="row">
                  <code>{w.url}</code>
                </th>
                <td>{w.events.join(', ')}</td>
                <td>{w.state === 'active' ? 'active' : `disabled${w.disabled_reason ? ` (${w.disabled_reason})` : ''}`}</td>
                <td>{formatTime(w.created_at)}</td>
                <td class="actions">
                  <a href={`#/webhooks/${encodeURIComponent(w.subscription_id)}`}>Deliveries</a>
                  <button type="button" disabled={busy} onClick={() => toggle(w)}>
                    {w.state === 'active' ? 'Disable' : 'Enable'}
                  </button>
                  <button type="button" disabled={busy} onClick={() => rotate(w)}>
                    Rotate secret
                  </button>
                  <button type="button" disabled={busy} onClick={() => test(w)}>
                    Send test event
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
