import { useMemo, useState } from 'preact/hooks';
import { Chart } from '../components/chart';
import { formatCount, formatMs, formatRate } from '../format';
import type { AccountUsage } from '../usage-model';
import { USAGE_TABLE_HEADINGS, type UsagePeriod, usageCharts, usageTableRows } from '../usage-series';
import { useSession } from './app';
import { useLoad } from './use-load';

const RANGES = [
  { value: 'day-30', label: 'Last 30 days, by day', granularity: 'day', days: 30 },
  { value: 'day-7', label: 'Last 7 days, by day', granularity: 'day', days: 7 },
  { value: 'hour-1', label: 'Today, by hour', granularity: 'hour', days: 1 },
  { value: 'hour-2', label: 'Today and yesterday, by hour', granularity: 'hour', days: 2 },
] as const;

/** Usage of the account (or of one key): totals, today's quota, three charts and the same figures as a table. */
export function UsagePanel(props: { keyId?: string; headingLevel: 1 | 2 }) {
  const { api } = useSession();
  const [range, setRange] = useState<(typeof RANGES)[number]>(RANGES[0]);
  const keyList = useLoad(() => api.keys(), []);
  const labels = new Map((keyList.data?.keys ?? []).map((k) => [k.key_id, k.label]));
  const usage = useLoad(() => api.usage({ granularity: range.granularity, days: range.days, keyId: props.keyId }), [range.value, props.keyId]);
  const Heading = props.headingLevel === 1 ? 'h1' : 'h2';
  const data = usage.data;
  const shown = useMemo(() => figuresOf(data, props.keyId), [data, props.keyId]);
  const charts = useMemo(() => (shown ? usageCharts(shown.periods) : null), [shown]);
  const hourly = data?.granularity === 'hour';
  return (
    <section aria-labelledby="usage-heading" aria-busy={usage.loading}>
      <Heading id="usage-heading">{props.keyId ? 'Usage of this key' : 'Usage of your account'}</Heading>
      <label for="usage-range">Period</label>
      <select id="usage-range" value={range.value} onChange={(e) => setRange(RANGES.find((r) => r.value === (e.target as HTMLSelectElement).value)!)}>
        {RANGES.map((r) => (
          <option key={r.value} value={r.value}>
            {r.label}
          </option>
        ))}
      </select>{' '}
      <button type="button" onClick={usage.reload}>
        Refresh
      </button>
      {usage.error && <p role="alert">{usage.error}</p>}
      {shown && (
        <>
          <dl class="totals" data-testid="usage-totals">
            <dt>Requests</dt>
            <dd data-testid="total-requests">{formatCount(shown.totals.requests)}</dd>
            <dt>Errors</dt>
            <dd>
              {formatCount(shown.totals.errors)} ({formatCount(shown.totals.errors_4xx)} 4xx, {formatCount(shown.totals.errors_5xx)} 5xx)
            </dd>
            <dt>Error rate</dt>
            <dd>{formatRate(shown.totals.error_rate)}</dd>
            <dt>Latency p50 / p95</dt>
            <dd>
              {formatMs(shown.totals.p50_ms)} / {formatMs(shown.totals.p95_ms)}
            </dd>
          </dl>
          <QuotaTable usage={data!} keyId={props.keyId} labels={labels} />
          {charts && (
            <div class="charts">
              <Chart
                title="Requests and errors"
                unit="requests"
                hourly={hourly}
                data={charts.requests}
                series={[
                  { label: 'Requests', colour: '#1f5fa8' },
                  { label: 'Errors', colour: '#b3261e', dashed: true },
                ]}
              />
              <Chart title="Error rate" unit="%" hourly={hourly} data={charts.errorRate} series={[{ label: 'Error rate (%)', colour: '#b3261e' }]} />
              <Chart
                title="Latency"
                unit="ms"
                hourly={hourly}
                data={charts.latency}
                series={[
                  { label: 'p50', colour: '#1f5fa8' },
                  { label: 'p95', colour: '#6a3d9a', dashed: true },
                ]}
              />
            </div>
          )}
          <UsageTable periods={shown.periods} />
        </>
      )}
    </section>
  );
}

function figuresOf(data: AccountUsage | null, keyId: string | undefined) {
  if (!data) return null;
  if (!keyId) return { totals: data.totals, periods: data.periods };
  return data.keys.find((k) => k.key_id === keyId) ?? { totals: data.totals, periods: data.periods };
}

function QuotaTable(props: { usage: AccountUsage; keyId?: string; labels: Map<string, string> }) {
  const keys = props.usage.keys.filter((k) => !props.keyId || k.key_id === props.keyId);
  if (keys.length === 0) return null;
  return (
    <table class="quota">
      <caption>Today's quota (UTC day)</caption>
      <thead>
        <tr>
          <th scope="col">Key</th>
          <th scope="col">Used</th>
          <th scope="col">Quota</th>
          <th scope="col">Remaining</th>
        </tr>
      </thead>
      <tbody>
        {keys.map((k) => (
          <tr key={k.key_id}>
            <th scope="row">{props.labels.get(k.key_id) ?? k.key_id}</th>
            <td>{formatCount(k.today.used)}</td>
            <td>{k.today.quota === null ? 'unlimited' : formatCount(k.today.quota)}</td>
            <td>{k.today.remaining === null ? 'unlimited' : formatCount(k.today.remaining)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The charts' figures for screen readers and anyone who prefers numbers. */
function UsageTable(props: { periods: UsagePeriod[] }) {
  const rows = usageTableRows(props.periods);
  return (
    <details class="usage-table">
      <summary>The same figures as a table</summary>
      {rows.length === 0 ? (
        <p>No requests in this period.</p>
      ) : (
        <table data-testid="usage-table">
          <caption>Periods with requests, newest first</caption>
          <thead>
            <tr>
              {USAGE_TABLE_HEADINGS.map((h) => (
                <th key={h} scope="col">
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row[0]}>{row.map((cell, i) => (i === 0 ? <th scope="row">{cell}</th> : <td>{cell}</td>))}</tr>
            ))}
          </tbody>
        </table>
      )}
    </details>
  );
}
