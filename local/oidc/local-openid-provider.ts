import type { IncomingMessage, ServerResponse } from 'node:http';
import Provider, { type Configuration, errors, type KoaContextWithOIDC } from 'oidc-provider';
import { JoseIdentityVerifier } from '../../lambdas/adapters/oidc/jose-identity-verifier';
import { identityProviderUnavailable } from '../../lambdas/core/auth/identity-token';
import type { IdentityVerifier } from '../../lambdas/ports/identity-verifier';
import type { LocalMount } from '../http-server';
import { type LocalUser, LocalUsers } from './local-users';
import { memoryAdapterFactory } from './memory-adapter';
import { errorPage, PAGE_HEADERS, signedOutPage, signInPage, signOutPage } from './pages';
import { ensureProviderState } from './provider-state';

/**
 * The local OpenID provider of `npm start` and the tests (oidc-provider), mounted on the API's own
 * server under /oidc: one port to print and open, and the dashboard it signs in to is on the same
 * origin, so neither discovery nor the token exchange needs CORS. It plays the Cognito user pool:
 * one public client (the dashboard), the code flow with PKCE (S256) required, `openid email`
 * scopes, and RS256 ID tokens carrying `email` and `email_verified: true`.
 */

export const OIDC_MOUNT_PATH = '/oidc';
export const DASHBOARD_CLIENT_ID = 'gcf-dashboard';
/** Where the dashboard is served: its redirect URI and its post-sign-out URI. */
export const DASHBOARD_PATH = '/dashboard/';
const FORM_BODY_LIMIT = 8 * 1024;

export interface LocalOpenIdProvider {
  /** `<origin>/oidc`: the `iss` of its tokens and the base of its discovery document. */
  issuer: string;
  clientId: string;
  /** `<origin>/dashboard/`. */
  dashboardUrl: string;
  /** The client's redirect URIs (and post-sign-out URIs): the dashboard on this origin and its loopback twin. */
  redirectUris: string[];
  /** The account `npm start` prints; `created` on the first start of a state folder (or every start in memory). */
  developmentAccount: { email: string; password: string; created: boolean; file: string | null };
  /** Lets another person sign in (tests, later parts); in memory, for this process. */
  addLocalUser(email: string, password: string): LocalUser;
  /** Answers a request under /oidc (the URL still carries the mount path). */
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

/** `http://127.0.0.1:<port>` and `http://localhost:<port>` are the same server: the dashboard may be opened at either. */
function loopbackTwins(origin: string): string[] {
  const url = new URL(origin);
  const twin = url.hostname === '127.0.0.1' ? 'localhost' : url.hostname === 'localhost' ? '127.0.0.1' : null;
  if (!twin) return [url.origin];
  const other = new URL(url.origin);
  other.hostname = twin;
  return [url.origin, other.origin];
}

export async function startLocalOpenIdProvider(options: { origin: string; dataDir?: string }): Promise<LocalOpenIdProvider> {
  const { state, created, file } = await ensureProviderState(options.dataDir);
  const origin = new URL(options.origin).origin;
  const issuer = `${origin}${OIDC_MOUNT_PATH}`;
  const redirectUris = loopbackTwins(origin).map((o) => `${o}${DASHBOARD_PATH}`);
  const users = new LocalUsers();
  users.add(state.developmentAccount.email, state.developmentAccount.password);

  const provider = new Provider(issuer, configuration({ users, redirectUris, signingKey: state.signingKey, cookieKeys: state.cookieKeys }));
  const callback = provider.callback();

  async function interaction(req: IncomingMessage, res: ServerResponse, uid: string, step: string | undefined): Promise<void> {
    try {
      const details = await provider.interactionDetails(req, res);
      if (details.uid !== uid)
        return send(res, 400, errorPage('invalid_request', 'This sign-in page belongs to another sign-in; start again from the dashboard'));
      const action = `${OIDC_MOUNT_PATH}/interaction/${details.uid}`;
      const form = { action: `${action}/login`, cancelAction: `${action}/cancel` };
      if (req.method === 'GET' && step === undefined) return send(res, 200, signInPage(form));
      if (req.method === 'POST' && step === 'login') {
        const fields = await readForm(req);
        if (fields === null) return send(res, 413, errorPage('invalid_request', 'The form is too large'));
        const user = users.check(fields.get('email') ?? '', fields.get('password') ?? '');
        if (!user) return send(res, 401, signInPage({ ...form, email: fields.get('email') ?? '', error: 'Wrong e-mail or password.' }));
        return await provider.interactionFinished(req, res, { login: { accountId: user.subject } }, { mergeWithLastSubmission: false });
      }
      if (req.method === 'POST' && step === 'cancel') {
        const result = { error: 'access_denied', error_description: 'The sign-in was cancelled' };
        return await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
      }
      return send(res, 405, errorPage('invalid_request', 'This page is not served with that method'));
    } catch (error) {
      if (error instanceof errors.SessionNotFound)
        return send(res, 400, errorPage('invalid_request', 'This sign-in has expired; start again from the dashboard'));
      throw error;
    }
  }

  return {
    issuer,
    clientId: DASHBOARD_CLIENT_ID,
    dashboardUrl: `${origin}${DASHBOARD_PATH}`,
    redirectUris,
    developmentAccount: { ...state.developmentAccount, created, file },
    addLocalUser: (email, password) => users.add(email, password),
    async handle(req, res) {
      const path = (req.url ?? '/').split('?')[0]!;
      const match = /^\/oidc\/interaction\/([A-Za-z0-9_-]+)(?:\/(login|cancel))?\/?$/.exec(path);
      try {
        if (match) return await interaction(req, res, match[1]!, match[2]);
        // Mounted as Express mounts it: the provider reads its own path from `url` and its mount from `originalUrl`.
        const mounted = req as IncomingMessage & { originalUrl?: string };
        mounted.originalUrl = req.url;
        req.url = (req.url ?? '/').slice(OIDC_MOUNT_PATH.length) || '/';
        await callback(req, res);
      } catch (error) {
        // The error's name and message only: never the request, whose form or query may hold a password or a code.
        console.error(JSON.stringify({ level: 'ERROR', message: 'local sign-in failed', error: `${(error as Error).name}: ${(error as Error).message}` }));
        if (!res.headersSent) send(res, 500, errorPage('server_error', 'The local sign-in failed; see the server output'));
        else res.destroy();
      }
    },
  };
}

function configuration(options: { users: LocalUsers; redirectUris: string[]; signingKey: object; cookieKeys: string[] }): Configuration {
  const { users } = options;
  return {
    adapter: memoryAdapterFactory(),
    clients: [
      {
        client_id: DASHBOARD_CLIENT_ID,
        client_name: 'Developer dashboard',
        application_type: 'web',
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code'],
        response_types: ['code'],
        redirect_uris: options.redirectUris,
        post_logout_redirect_uris: options.redirectUris,
        id_token_signed_response_alg: 'RS256',
      },
    ],
    jwks: { keys: [options.signingKey] },
    cookies: { keys: options.cookieKeys },
    scopes: ['openid', 'email'],
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    // The e-mail goes in the ID token itself (as Cognito's does), not only from userinfo.
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    // The dashboard may be opened on the issuer's loopback twin (localhost for 127.0.0.1): its token request is then cross-origin.
    clientBasedCORS: (_ctx, origin, client) => client.redirectUris?.some((uri) => new URL(uri).origin === origin) ?? false,
    // An hour for tokens, as Cognito's defaults; a working day for the sign-in session.
    ttl: { AccessToken: 3600, AuthorizationCode: 60, IdToken: 3600, Interaction: 600, Session: 8 * 3600, Grant: 8 * 3600 },
    responseTypes: ['code'],
    features: {
      devInteractions: { enabled: false },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: (ctx: KoaContextWithOIDC, form: string) => {
          ctx.type = 'html';
          ctx.body = signOutPage(form);
        },
        postLogoutSuccessSource: (ctx: KoaContextWithOIDC) => {
          ctx.type = 'html';
          ctx.body = signedOutPage();
        },
      },
    },
    interactions: { url: (_ctx, interaction) => `${OIDC_MOUNT_PATH}/interaction/${interaction.uid}` },
    findAccount: (_ctx, subject) => {
      const user = users.find(subject);
      return user ? { accountId: subject, claims: () => ({ sub: subject, email: user.email, email_verified: true }) } : undefined;
    },
    // The dashboard is this service's own app: signing in to it is consent enough, so no consent page.
    loadExistingGrant: async (ctx) => {
      const accountId = ctx.oidc.account?.accountId;
      const clientId = ctx.oidc.client?.clientId;
      if (!accountId || clientId !== DASHBOARD_CLIENT_ID) return undefined;
      const grantId = ctx.oidc.result?.consent?.grantId ?? ctx.oidc.session?.grantIdFor(clientId);
      const existing = grantId ? await ctx.oidc.provider.Grant.find(grantId) : undefined;
      // The session's grant may be another person's (a second sign-in on the same browser).
      if (existing && existing.accountId === accountId) return existing;
      const grant = new ctx.oidc.provider.Grant({ accountId, clientId });
      grant.addOIDCScope('openid email');
      await grant.save();
      return grant;
    },
    renderError: (ctx, out) => {
      ctx.type = 'html';
      ctx.body = errorPage(String(out.error), out.error_description === undefined ? undefined : String(out.error_description));
    },
  };
}

function send(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, PAGE_HEADERS);
  res.end(html);
}

/** An urlencoded form body, or null when it is over the limit. */
async function readForm(req: IncomingMessage): Promise<URLSearchParams | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > FORM_BODY_LIMIT) return null;
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/**
 * The mount for the API server: the provider's issuer holds the server's port, so it starts once
 * the server listens; until then its paths answer 503.
 */
export function localOpenIdMount(current: () => LocalOpenIdProvider | null): LocalMount {
  return {
    prefix: OIDC_MOUNT_PATH,
    async handle(req, res) {
      const provider = current();
      if (provider) return provider.handle(req, res);
      req.resume();
      send(res, 503, errorPage('temporarily_unavailable', 'The local sign-in is starting; try again in a moment'));
    },
  };
}

/**
 * The account API's verifier on the local server: the same jose adapter as in AWS, pointed at the
 * local issuer once it is up (the routes are built before the server listens); 503 until then.
 */
export function localIdentityVerifier(current: () => LocalOpenIdProvider | null): IdentityVerifier {
  let verifier: { issuer: string; verifier: IdentityVerifier } | null = null;
  return {
    verify(authorization) {
      const provider = current();
      if (!provider) return Promise.reject(identityProviderUnavailable());
      if (verifier?.issuer !== provider.issuer)
        verifier = { issuer: provider.issuer, verifier: new JoseIdentityVerifier({ issuer: provider.issuer, clientId: provider.clientId }) };
      return verifier.verifier.verify(authorization);
    },
  };
}
