import { InMemoryWebStorage, type User, UserManager, WebStorageStateStore } from 'oidc-client-ts';
import type { DashboardConfig } from './config';

/**
 * Sign-in with the authorization code flow and PKCE (oidc-client-ts). The signed-in user (its ID
 * token) lives in memory only: a reload or a closed tab forgets it. Only the short-lived request
 * state (the PKCE verifier) goes to sessionStorage, because it has to survive the redirect to the
 * provider and back; oidc-client-ts deletes it when the callback is handled.
 */

export interface Auth {
  /** The signed-in user after a callback, or null. */
  user(): Promise<User | null>;
  signIn(): Promise<void>;
  signOut(): Promise<void>;
  /** Handles `?code=&state=` (or `?error=`) after the provider's redirect and removes them from the URL. */
  completeSignInIfReturning(): Promise<User | null>;
}

/** The dashboard's own address (its folder, with the trailing slash): the redirect and post-sign-out URI. */
export function dashboardHome(location: Location): string {
  return new URL('./', location.href).href.split('?')[0]!.split('#')[0]!;
}

export function createAuth(config: DashboardConfig, location: Location): Auth {
  const home = dashboardHome(location);
  const manager = new UserManager({
    authority: config.issuer,
    client_id: config.clientId,
    redirect_uri: home,
    post_logout_redirect_uri: home,
    response_type: 'code',
    scope: 'openid email',
    userStore: new WebStorageStateStore({ store: new InMemoryWebStorage() }),
    stateStore: new WebStorageStateStore({ store: window.sessionStorage }),
    automaticSilentRenew: false,
    monitorSession: false,
    loadUserInfo: false,
  });

  // A sign-in abandoned at the provider leaves its state behind: drop any older than oidc-client-ts's limit.
  void manager.clearStaleState().catch(() => {});
  return {
    user: () => manager.getUser(),
    signIn: () => manager.signinRedirect(),
    async signOut() {
      const user = await manager.getUser();
      await manager.removeUser();
      const metadata = await manager.metadataService.getMetadata().catch(() => null);
      if (metadata?.end_session_endpoint) {
        await manager.signoutRedirect({ id_token_hint: user?.id_token, post_logout_redirect_uri: home });
        return;
      }
      // Cognito's discovery names no end-session endpoint: its managed login's /logout ends the session.
      const logout = new URL(`${config.signInUrl}/logout`);
      logout.searchParams.set('client_id', config.clientId);
      logout.searchParams.set('logout_uri', home);
      location.assign(logout.href);
    },
    async completeSignInIfReturning() {
      const params = new URLSearchParams(location.search);
      if (!params.has('state') || !(params.has('code') || params.has('error'))) return null;
      try {
        return (await manager.signinCallback(location.href)) ?? null;
      } finally {
        // The code and state leave the address bar (and the history) whether or not they worked.
        window.history.replaceState(null, '', home + location.hash);
      }
    },
  };
}
