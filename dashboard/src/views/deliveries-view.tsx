import { useState } from 'preact/hooks';
import type { Delivery } from '../api';
import { plainError } from '../api-errors';
import { formatMs, formatTime } from '../format';
import { deliveryPage } from '../webhook-shapes';
import { useSession } from './app';
import { useLoad } from './use-load';

const PAGE = 25;

/** One webhook's deliveries with their attempts, newest first; each may be sent again. */
export function DeliveriesView(props: { webhookId: string }) {
  const { api, announce } = useSession();
  const first = useLoad(async () => deliveryPage(await api.deliveries(props.webhookId, { limit: PAGE })), [props.webhookId]);
  const [older, setOlder] = useState<{ deliveries: Delivery[]; next: string | null } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const deliveries = [...(first.data?.deliveries ?? []), ...(older?.deliveries ?? [])];
  const next = older ? older.next : (first.data?.next ?? null);

  async function run(work: () => Promise<void>) {
    setError(null);
    try {
      await work();
    } catch (e) {
      setError(plainError(e));
    }
  }
  const loadOlder = () =>
    run(async () => {
      const page = deliveryPage(await api.deliveries(props.webhookId, { limit: PAGE, cursor: next }));
      setOlder({ deliveries: [...(older?.deliveries ?? []), ...page.deliveries], next: page.next });
    });
  const replay = (d: Delivery) =>
    run(async () => {
      await api.replayDelivery(props.webhookId, d.delivery_id);
      announce(`Delivery ${d.delivery_id} queued to be sent again.`);
      setOlder(null);
      first.reload();
    });

  return (
    <section aria-labelledby="deliveries-heading" aria-busy={first.loading}>
      <h1 id="deliveries-heading">Deliveries</h1>
      <p>
        <a href="#/webhooks">Back to the webhooks</a>
      </p>
      {(first.error || error) && <p role="alert">{first.error ?? error}</p>}
      {first.data && deliveries.length === 0 && <p>No deliveries yet.</p>}
      {deliveries.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Created</th>
              <th scope="col">Event</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last answer</th>
              <th scope="col">Latency</th>
              <th scope="col">Next attempt</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {deliveries.map((d) => (
              <tr key={d.delivery_id}>
                <td>{formatTime(d.created_at)}</td>
                <td>{d.event}</td>
                <td>{d.status}</td>
                <td>{d.attempts}</td>
                <td>{d.last_status_code === null ? (d.last_error ?? '–') : `HTTP ${d.last_status_code}`}</td>
                <td>{formatMs(d.last_latency_ms)}</td>
                <td>{formatTime(d.next_attempt_at)}</td>
                <td>
                  <button type="button" onClick={() => replay(d)} aria-label={`Send delivery ${d.delivery_id} again`}>
                    Send again
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {next && (
        <button type="button" onClick={loadOlder}>
          Show older deliveries
        </button>
      )}
    </section>
  );
}
