import { useState } from 'preact/hooks';
import type { AuditPage } from '../api';
import { plainError } from '../api-errors';
import { formatTime } from '../format';
import { useSession } from './app';
import { useLoad } from './use-load';

const PAGE = 50;

const pageOf = (page: AuditPage) => ({ entries: page.entries, next: page.next_cursor });

/** The audit log, newest first, with older pages on request. */
export function AuditView() {
  const { api } = useSession();
  const first = useLoad(async () => pageOf(await api.audit({ limit: PAGE })), []);
  const [older, setOlder] = useState<ReturnType<typeof pageOf> | null>(null);
  const [error, setError] = useState<string | null>(null);
  const entries = [...(first.data?.entries ?? []), ...(older?.entries ?? [])];
  const next = older ? older.next : (first.data?.next ?? null);

  async function loadOlder() {
    try {
      const page = pageOf(await api.audit({ limit: PAGE, before: next }));
      setOlder({ entries: [...(older?.entries ?? []), ...page.entries], next: page.next });
    } catch (e) {
      setError(plainError(e));
    }
  }

  return (
    <section aria-labelledby="audit-heading">
      <h1 id="audit-heading">Audit log</h1>
      <p>Who changed what in your account, newest first.</p>
      {(first.error || error) && <p role="alert">{first.error ?? error}</p>}
      {first.data && entries.length === 0 && <p>Nothing yet.</p>}
      {entries.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">By</th>
              <th scope="col">Action</th>
              <th scope="col">On</th>
              <th scope="col">Details</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr key={`${entry.at}-${entry.action}-${entry.target}`}>
                <td>{formatTime(entry.at)}</td>
                <td>{entry.actor}</td>
                <td>{entry.action}</td>
                <td>
                  <code>{entry.target}</code>
                </td>
                <td>
                  {Object.entries(entry.detail ?? {})
                    .map(([name, value]) => `${name}: ${String(value)}`)
                    .join(', ')}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {next && (
        <button type="button" onClick={loadOlder}>
          Show older entries
        </button>
      )}
    </section>
  );
}
