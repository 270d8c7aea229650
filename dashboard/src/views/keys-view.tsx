import { useState } from 'preact/hooks';
import type { AccountKey } from '../api';
import { plainError } from '../api-errors';
import { Dialog } from '../components/dialog';
import { formatTime, keyState } from '../format';
import { useSession } from './app';
import { NewKey } from './new-key';
import { useLoad } from './use-load';

const GRACE_CHOICES = [
  { hours: 0, label: 'Stop the old key now' },
  { hours: 1, label: 'Keep the old key working for 1 hour' },
  { hours: 24, label: 'Keep the old key working for 24 hours' },
  { hours: 72, label: 'Keep the old key working for 3 days' },
  { hours: 168, label: 'Keep the old key working for 7 days' },
];

/** A fresh Idempotency-Key per create: a retried request never makes a second key. */
const requestId = () => crypto.randomUUID();

/** The keys: list, create with a label, rotate with a grace period, revoke after confirmation. */
export function KeysView() {
  const { api, announce } = useSession();
  const list = useLoad(() => api.keys(), []);
  const [label, setLabel] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [shown, setShown] = useState<{ title: string; apiKey: string } | null>(null);
  const [rotating, setRotating] = useState<AccountKey | null>(null);
  const [grace, setGrace] = useState(24);
  const [revoking, setRevoking] = useState<AccountKey | null>(null);

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

  const create = (event: Event) => {
    event.preventDefault();
    return act(async () => {
      const created = await api.createKey(label.trim(), requestId());
      if (created.api_key) setShown({ title: `Your new key “${created.key.label}”`, apiKey: created.api_key });
      setLabel('');
      // Null: an earlier attempt of this same request made the key, and its value cannot be shown again.
      announce(created.api_key ? `Key “${created.key.label}” created.` : `Key “${created.key.label}” was already created; revoke it if its value is lost.`);
      list.reload();
    });
  };
  const rotate = (key: AccountKey) =>
    act(async () => {
      const rotated = await api.rotateKey(key.key_id, grace);
      setRotating(null);
      if (rotated.api_key) setShown({ title: `The new value of “${rotated.key.label}”`, apiKey: rotated.api_key });
      announce(`Key “${rotated.key.label}” rotated.`);
      list.reload();
    });
  const revoke = (key: AccountKey) =>
    act(async () => {
      await api.revokeKey(key.key_id);
      setRevoking(null);
      announce(`Key “${key.label}” revoked.`);
      list.reload();
    });

  const keys = list.data?.keys ?? [];
  const notice = list.data?.api_access === false ? (list.data.notice ?? 'Your plan has no API access: the API refuses its keys.') : null;
  const now = new Date();
  return (
    <section aria-labelledby="keys-heading">
      <h1 id="keys-heading">API keys</h1>
      {notice && <p class="notice">{notice}</p>}
      {shown && <NewKey title={shown.title} apiKey={shown.apiKey} onDone={() => setShown(null)} />}
      <form onSubmit={create} class="create-key">
        <h2>Create a key</h2>
        <label for="key-label">Label</label>
        <input
          id="key-label"
          value={label}
          onInput={(e) => setLabel((e.target as HTMLInputElement).value)}
          required
          maxLength={100}
          aria-describedby="key-label-hint"
        />
        <span id="key-label-hint" class="hint">
          A name to tell your keys apart, such as the app that uses it.
        </span>
        <button type="submit" disabled={busy}>
          Create key
        </button>
      </form>
      {(error || list.error) && <p role="alert">{error ?? list.error}</p>}
      <h2>Your keys</h2>
      {list.data && (
        <p>
          {list.data.live_keys} of at most {list.data.max_live_keys} keys in use.
        </p>
      )}
      {list.data && keys.length === 0 && <p>No keys yet.</p>}
      {keys.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Label</th>
              <th scope="col">Key starts with</th>
              <th scope="col">State</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {keys.map((key) => (
              <tr key={key.key_id} data-key-id={key.key_id}>
                <th scope="row">{key.label}</th>
                <td>
                  <code>{key.prefix}…</code>
                </td>
                <td>{keyState(key, now)}</td>
                <td>{formatTime(key.created_at)}</td>
                <td>{key.last_used_at ? formatTime(key.last_used_at) : 'never'}</td>
                <td class="actions">
                  <a href={`#/keys/${encodeURIComponent(key.key_id)}`} aria-label={`Usage and requests of ${key.label}`}>
                    Usage and requests
                  </a>
                  {!key.revoked_at && (
                    <>
                      <button type="button" onClick={() => setRotating(key)} aria-label={`Rotate ${key.label}`}>
                        Rotate
                      </button>
                      <button type="button" onClick={() => setRevoking(key)} aria-label={`Revoke ${key.label}`}>
                        Revoke
                      </button>
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {rotating && (
        <Dialog title={`Rotate “${rotating.label}”?`} onClose={() => setRotating(null)}>
          <p>The key gets a new value, shown once. Apps need the new value; choose how long the old one keeps working.</p>
          <fieldset>
            <legend>The old key</legend>
            {GRACE_CHOICES.map((choice) => (
              <label key={choice.hours} class="choice">
                <input type="radio" name="grace" checked={grace === choice.hours} onChange={() => setGrace(choice.hours)} />
                {choice.label}
              </label>
            ))}
          </fieldset>
          <div class="buttons">
            <button type="button" data-autofocus onClick={() => setRotating(null)}>
              Cancel
            </button>
            <button type="button" disabled={busy} onClick={() => rotate(rotating)}>
              Rotate key
            </button>
          </div>
          {error && <p role="alert">{error}</p>}
        </Dialog>
      )}
      {revoking && (
        <Dialog title={`Revoke “${revoking.label}”?`} onClose={() => setRevoking(null)}>
          <p>
            Apps using this key stop working at once. <strong>This cannot be undone.</strong>
          </p>
          <div class="buttons">
            <button type="button" data-autofocus onClick={() => setRevoking(null)}>
              Cancel
            </button>
            <button type="button" class="danger" disabled={busy} onClick={() => revoke(revoking)}>
              Revoke key
            </button>
          </div>
          {error && <p role="alert">{error}</p>}
        </Dialog>
      )}
    </section>
  );
}
