import type { User } from 'oidc-client-ts';
import { createContext } from 'preact';
import { useContext, useEffect, useMemo, useState } from 'preact/hooks';
import { AccountApi } from '../api';
import { plainError } from '../api-errors';
import type { Auth } from '../auth';
import type { DashboardConfig } from '../config';
import { AccountView } from './account-view';
import { AuditView } from './audit-view';
import { KeyDetailView } from './key-detail-view';
import { KeysView } from './keys-view';
import { UsageView } from './usage-view';
import { WebhooksView } from './webhooks-view';

export interface Session {
  api: AccountApi;
  config: DashboardConfig;
  /** Says something in the polite live region (results of actions). */
  announce(message: string): void;
}

export const SessionContext = createContext<Session | null>(null);
export const useSession = () => useContext(SessionContext)!;

const ROUTES = [
  { hash: '#/', label: 'Account' },
  { hash: '#/keys', label: 'Keys' },
  { hash: '#/usage', label: 'Usage' },
  { hash: '#/webhooks', label: 'Webhooks' },
  { hash: '#/audit', label: 'Audit log' },
];

function useHash(): string {
  const [hash, setHash] = useState(window.location.hash || '#/');
  useEffect(() => {
    const changed = () => setHash(window.location.hash || '#/');
    window.addEventListener('hashchange', changed);
    return () => window.removeEventListener('hashchange', changed);
  }, []);
  return hash;
}

function Page(props: { hash: string }) {
  const key = /^#\/keys\/([^/]+)$/.exec(props.hash);
  if (key) return <KeyDetailView keyId={decodeURIComponent(key[1]!)} />;
  if (props.hash === '#/webhooks') return <WebhooksView />;
  if (props.hash === '#/keys') return <KeysView />;
  if (props.hash === '#/usage') return <UsageView />;
  if (props.hash === '#/audit') return <AuditView />;
  return <AccountView />;
}

export function App(props: { config: DashboardConfig; auth: Auth; user: User | null; signInError: string | null }) {
  const [user, setUser] = useState(props.user);
  const [status, setStatus] = useState('');
  const [expired, setExpired] = useState(false);
  const hash = useHash();
  const session = useMemo<Session>(
    () => ({
      config: props.config,
      api: new AccountApi(
        props.config.accountApiBaseUrl,
        async () => (await props.auth.user())?.id_token ?? null,
        () => setExpired(true),
      ),
      announce: (message) => setStatus(message),
    }),
    [],
  );

  async function signOut() {
    setUser(null);
    await props.auth.signOut().catch((error) => setStatus(plainError(error)));
  }

  if (!user || user.expired) {
    return (
      <main>
        <h1>Developer dashboard</h1>
        <p>Sign in to manage your API keys, see your usage and read your account's audit log.</p>
        {props.signInError && <p role="alert">{props.signInError}</p>}
        {user?.expired && <p role="alert">Your sign-in has expired. Sign in again.</p>}
        <button type="button" onClick={() => props.auth.signIn().catch((error) => setStatus(plainError(error)))}>
          Sign in
        </button>
        <p role="status">{status}</p>
      </main>
    );
  }

  const current = hash.startsWith('#/keys/') ? '#/keys' : hash;
  return (
    <SessionContext.Provider value={session}>
      <header>
        <p class="brand">Developer dashboard</p>
        <nav aria-label="Dashboard">
          <ul>
            {ROUTES.map((route) => (
              <li key={route.hash}>
                <a href={route.hash} aria-current={current === route.hash ? 'page' : undefined}>
                  {route.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <p class="who">
          Signed in as <span data-testid="signed-in-email">{String(user.profile.email ?? '')}</span>{' '}
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        </p>
      </header>
      {expired && (
        <p role="alert" class="banner">
          Your sign-in has expired or was refused.{' '}
          <button type="button" onClick={() => props.auth.signIn()}>
            Sign in again
          </button>
        </p>
      )}
      <p role="status" aria-live="polite" class="status">
        {status}
      </p>
      <main>
        <Page hash={hash} />
      </main>
    </SessionContext.Provider>
  );
}
