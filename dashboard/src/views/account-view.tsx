import { describeLimits, formatTime } from '../format';
import { useSession } from './app';
import { useLoad } from './use-load';

/** The account: its owner, plan and the plan's limits. */
export function AccountView() {
  const { api } = useSession();
  const account = useLoad(() => api.account(), []);
  const data = account.data;
  return (
    <section aria-labelledby="account-heading">
      <h1 id="account-heading">Your account</h1>
      {account.error && <p role="alert">{account.error}</p>}
      {!data && account.loading && <p>Loading…</p>}
      {data && (
        <>
          <dl>
            <dt>Account</dt>
            <dd>
              <code>{data.account_id}</code>
            </dd>
            <dt>Owner</dt>
            <dd>{data.owner_email}</dd>
            <dt>Plan</dt>
            <dd data-testid="plan">{data.plan}</dd>
            <dt>Created</dt>
            <dd>{formatTime(data.created_at)}</dd>
          </dl>
          <h2>What your plan includes</h2>
          <ul data-testid="plan-limits">
            {describeLimits(data.limits).map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
          <p>
            Manage your <a href="#/keys">API keys</a> or see your <a href="#/usage">usage</a>.
          </p>
        </>
      )}
    </section>
  );
}
