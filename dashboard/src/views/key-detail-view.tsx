import { useState } from 'preact/hooks';
import type { RequestLogEntry } from '../api';
import { plainError } from '../api-errors';
import { formatMs, formatTime } from '../format';
import { useSession } from './app';
import { UsagePanel } from './usage-panel';
import { useLoad } from './use-load';

const PAGE = 25;

/** One key: its usage and its recent requests, newest first, older pages on request. */
export function KeyDetailView(props: { keyId: string }) {
  const { api } = useSession();
  const keys = useLoad(() => api.keys(), []);
  const key = keys.data?.keys.find((k) => k.key_id === props.keyId);
  const first = useLoad(() => api.requests(props.keyId, { limit: PAGE }), [props.keyId]);
  const [older, setOlder] = useState<{ entries: RequestLogEntry[]; next: string | null } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const entries = [...(first.data?.entries ?? []), ...(older?.entries ?? [])];
  const next = older ? older.next : (first.data?.next_cursor ?? null);

  async function loadOlder() {
    try {
      const page = await api.requests(props.keyId, { limit: PAGE, cursor: next });
      setOlder({ entries: [...(older?.entries ?? []), ...page.entries], next: page.next_cursor });
    } catch (e) {
      setError(plainError(e));
    }
  }
  function refresh() {
    setOlder(null);
    first.reload();
  }

  return (
    <>
      <h1>Key “{key?.label ?? props.keyId}”</h1>
      <p>
        <a href="#/keys">Back to the keys</a>
      </p>
      <UsagePanel keyId={props.keyId} headingLevel={2} />
      <section aria-labelledby="requests-heading" aria-busy={first.loading}>
        <h2 id="requests-heading">Recent requests</h2>
        <p>The latest calls made with this key (paths without their query), newest first.</p>
        <button type="button" onClick={refresh}>
          Refresh
        </button>
        {(first.error || error) && <p role="alert">{first.error ?? error}</p>}
        {first.data && entries.length === 0 && <p>No requests yet.</p>}
        {entries.length > 0 && (
          <table data-testid="request-log">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Method</th>
                <th scope="col">Path</th>
                <th scope="col">Status</th>
                <th scope="col">Latency</th>
                <th scope="col">Request id</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((entry) => (
                <tr key={entry.request_id}>
                  <td>{formatTime(entry.at)}</td>
                  <td>{entry.method}</td>
                  <td>
                    <code>{entry.path}</code>
                  </td>
                  <td>{entry.status}</td>
                  <td>{formatMs(entry.latency_ms)}</td>
                  <td>
                    <code>{entry.request_id}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {next && (
          <button type="button" onClick={loadOlder}>
            Show older requests
          </button>
        )}
      </section>
    </>
  );
}
