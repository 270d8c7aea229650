import { useState } from 'preact/hooks';
import type { Webhook } from '../api';
import { plainError } from '../api-errors';
import { formatTime } from '../format';
import { useSession } from './app';
import { useLoad } from './use-load';

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
  return <WebhookList />;
}

/**
 * The subscriptions of the account's keys, each of which can be turned off and on; the account
 * API does not add or otherwise change them yet (operators do, with `npm run admin -- webhooks …`).
 */
function WebhookList() {
  const { api, announce } = useSession();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const keys = useLoad(() => api.keys(), []);
  const list = useLoad(() => api.webhooks(), []);
  const labels = new Map((keys.data?.keys ?? []).map((k) => [k.key_id, k.label]));
  const webhooks = list.data?.webhooks ?? [];

  async function toggle(webhook: Webhook) {
    const next = webhook.state === 'active' ? 'disabled' : 'active';
    setBusy(true);
    setError(null);
    try {
      await api.setWebhookState(webhook.subscription_id, next);
      announce(`Webhook to ${webhook.url} ${next === 'active' ? 'turned on' : 'turned off'}.`);
      list.reload();
    } catch (e) {
      setError(plainError(e));
    } finally {
      setBusy(false);
    }
  }
  return (
    <section aria-labelledby="webhooks-heading" aria-busy={list.loading}>
      <h1 id="webhooks-heading">Webhooks</h1>
      <p>The webhooks of your keys. You can turn each off and on; to add one or change it, ask an operator of the service.</p>
      {(error || list.error) && <p role="alert">{error ?? list.error}</p>}
      {list.data && webhooks.length === 0 && <p>No webhooks yet.</p>}
      {webhooks.length > 0 && (
        <table data-testid="webhooks">
          <thead>
            <tr>
              <th scope="col">Receiver</th>
              <th scope="col">Key</th>
              <th scope="col">Events</th>
              <th scope="col">Saved search</th>
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
                <td>{labels.get(w.key_id) ?? w.key_id}</td>
                <td>
                  {w.events.join(', ')}
                  {w.events.some((e) => e.endsWith('.deadline_approaching')) && ` (${w.days_before} days before a deadline)`}
                </td>
                <td>{w.filter ? <code>{w.filter}</code> : 'every record'}</td>
                <td>
                  {w.state === 'active' ? 'active' : `disabled${w.disabled_reason ? `: ${w.disabled_reason}` : ''}`}
                  {w.rotating && ' (secret being rotated)'}
                </td>
                <td>{formatTime(w.created_at)}</td>
                <td>
                  <button
                    type="button"
                    disabled={busy}
                    onClick={() => toggle(w)}
                    aria-label={`${w.state === 'active' ? 'Turn off' : 'Turn on'} the webhook to ${w.url}`}
                  >
                    {w.state === 'active' ? 'Turn off' : 'Turn on'}
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
