import { mkdtempSync, rmSync, statSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JoseIdentityVerifier } from '../../lambdas/adapters/oidc/jose-identity-verifier';
import { ServiceError } from '../../lambdas/core/errors';
import { createApiServer, listen } from '../../local/http-server';
import { type LocalOpenIdProvider, localIdentityVerifier, localOpenIdMount, startLocalOpenIdProvider } from '../../local/oidc/local-openid-provider';
import { OIDC_STATE_FILE } from '../../local/oidc/provider-state';
import {
  authorizationUrl,
  browse,
  type CodeFlowClient,
  CookieJar,
  exchangeCode,
  followProvider,
  formAction,
  pkcePair,
  signInForIdToken,
} from '../support/oidc-code-flow';

/**
 * The local OpenID provider on the API server's port, over real HTTP as the dashboard and a
 * browser would use it: the code flow with PKCE, the sign-in page, sign-out, and the ID tokens
 * the verifier then accepts.
 */

const dataDir = mkdtempSync(join(tmpdir(), 'gcf-oidc-'));
let server: Server;
let provider: LocalOpenIdProvider;
let current: LocalOpenIdProvider | null = null;
let client: CodeFlowClient;
let verifier: JoseIdentityVerifier;

beforeAll(async () => {
  server = createApiServer(
    [],
    async () => {
      throw new Error('no API routes here');
    },
    { mounts: [localOpenIdMount(() => current)] },
  );
  const origin = new URL(await listen(server, 0)).origin;
  provider = await startLocalOpenIdProvider({ origin, dataDir });
  current = provider;
  client = { issuer: provider.issuer, clientId: provider.clientId, redirectUri: provider.redirectUris[0]! };
  verifier = new JoseIdentityVerifier({ issuer: provider.issuer, clientId: provider.clientId });
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(dataDir, { recursive: true, force: true });
});

const developer = () => provider.developmentAccount;

/** The sign-in page of a new authorization request (PKCE unless `challenge` is null). */
async function signInPage(jar: CookieJar, challenge: string | null = pkcePair().challenge) {
  return followProvider(jar, client, await browse(jar, authorizationUrl(client, { state: 'st', challenge })));
}

describe('the local OpenID provider', () => {
  it('publishes its issuer, RS256 keys, PKCE S256 and the code flow in its discovery document', async () => {
    expect(provider.issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/oidc$/);
    expect(provider.redirectUris).toEqual([
      `${new URL(provider.issuer).origin}/dashboard/`,
      `${new URL(provider.issuer).origin.replace('127.0.0.1', 'localhost')}/dashboard/`,
    ]);
    const discovery = (await (await fetch(`${provider.issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(discovery.issuer).toBe(provider.issuer);
    expect(discovery.jwks_uri).toBe(`${provider.issuer}/jwks`);
    expect(discovery.response_types_supported).toEqual(['code']);
    expect(discovery.code_challenge_methods_supported).toEqual(['S256']);
    expect(discovery.id_token_signing_alg_values_supported).toContain('RS256');
    expect(discovery.end_session_endpoint).toBe(`${provider.issuer}/session/end`);
    const jwks = (await (await fetch(`${provider.issuer}/jwks`)).json()) as { keys: Record<string, unknown>[] };
    expect(jwks.keys.map((k) => [k.kty, k.alg, 'd' in k])).toEqual([['RSA', 'RS256', false]]);
  });

  it('signs the development account in with the code flow and PKCE; the verifier accepts its ID token', async () => {
    expect(developer().email).toBe('developer@localhost.test');
    const { idToken } = await signInForIdToken(client, developer().email, developer().password);
    expect(decodeProtectedHeader(idToken).alg).toBe('RS256');
    const identity = await verifier.verify([`Bearer ${idToken}`]);
    expect(identity.email).toBe('developer@localhost.test');
    expect(identity.subject).toMatch(/^local-/);
  });

  it("gives the local server's account API a verifier that answers 503 until the provider is up", async () => {
    const { idToken } = await signInForIdToken(client, developer().email, developer().password);
    let up: LocalOpenIdProvider | null = null;
    const local = localIdentityVerifier(() => up);
    const early = await local.verify([`Bearer ${idToken}`]).catch((e: unknown) => e);
    expect((early as ServiceError).status).toBe(503);
    up = provider;
    expect((await local.verify([`Bearer ${idToken}`])).email).toBe('developer@localhost.test');
    expect(((await local.verify(['Bearer a.b.c']).catch((e: unknown) => e)) as ServiceError).status).toBe(401);
  });

  it('shows an accessible sign-in page: labelled fields, autocomplete, errors announced', async () => {
    const page = await signInPage(new CookieJar());
    expect(page.status).toBe(200);
    expect(page.body).toContain('<html lang="en">');
    expect(page.body).toMatch(/<label for="email">E-mail<\/label>\s*<input id="email" name="email" type="email" autocomplete="username" required/);
    expect(page.body).toMatch(/<label for="password">Password<\/label>\s*<input id="password" name="password" type="password" autocomplete="current-password"/);
    expect(page.body).toContain('<button type="submit">Sign in</button>');
  });

  it('refuses a wrong password with the form again and an error, and no code', async () => {
    const jar = new CookieJar();
    const page = await signInPage(jar);
    const answer = await browse(jar, formAction(page.body, provider.issuer), { form: { email: developer().email, password: 'not-the-password' } });
    expect(answer.status).toBe(401);
    expect(answer.location).toBeNull();
    expect(answer.body).toContain('<p id="sign-in-error" class="error" role="alert">Wrong e-mail or password.</p>');
    expect(answer.body).toContain(`value="${developer().email}"`);
    expect(answer.body).not.toContain('not-the-password');
    // An unknown e-mail gets the same answer.
    const unknown = await browse(jar, formAction(page.body, provider.issuer), { form: { email: 'nobody@localhost.test', password: developer().password } });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toContain('Wrong e-mail or password.');
    expect(unknown.body).not.toContain(developer().password);
  });

  it('refuses an authorization request without PKCE, and a code exchanged without the right verifier', async () => {
    const refused = await followProvider(new CookieJar(), client, await browse(new CookieJar(), authorizationUrl(client, { state: 'st', challenge: null })));
    const back = new URL(refused.location!);
    expect(`${back.origin}${back.pathname}`).toBe(client.redirectUri);
    expect(back.searchParams.get('error')).toBe('invalid_request');
    expect(back.searchParams.get('code')).toBeNull();

    const jar = new CookieJar();
    const { challenge } = pkcePair();
    const page = await signInPage(jar, challenge);
    const landed = await followProvider(
      jar,
      client,
      await browse(jar, formAction(page.body, provider.issuer), { form: { email: developer().email, password: developer().password } }),
    );
    const code = new URL(landed.location!).searchParams.get('code')!;
    const wrongVerifier = await exchangeCode(client, code, pkcePair().verifier);
    expect(wrongVerifier.status).toBe(400);
    expect(wrongVerifier.body.error).toBe('invalid_grant');
    expect(wrongVerifier.body.id_token).toBeUndefined();
  });

  it('refuses the plain PKCE method and a redirect URI that is not the dashboard', async () => {
    const plain = new URL(authorizationUrl(client, { state: 'st', challenge: 'x'.repeat(43) }));
    plain.searchParams.set('code_challenge_method', 'plain');
    const refused = await followProvider(new CookieJar(), client, await browse(new CookieJar(), plain.href));
    expect(new URL(refused.location!).searchParams.get('error')).toBe('invalid_request');

    const elsewhere = authorizationUrl({ ...client, redirectUri: 'http://127.0.0.1:1/steal' }, { state: 'st', challenge: pkcePair().challenge });
    const answer = await browse(new CookieJar(), elsewhere);
    expect(answer.status).toBe(400);
    expect(answer.location).toBeNull();
    expect(answer.body).toContain('redirect_uri did not match');
  });

  it("lets the dashboard's origins, and no other, read the token endpoint's answers across origins", async () => {
    const tokenRequest = (origin: string) =>
      fetch(`${provider.issuer}/token`, {
        method: 'POST',
        headers: { origin, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: 'unknown',
          redirect_uri: client.redirectUri,
          client_id: client.clientId,
          code_verifier: pkcePair().verifier,
        }),
      });
    const twin = new URL(provider.redirectUris[1]!).origin;
    const fromTwin = await tokenRequest(twin);
    expect(fromTwin.status).toBe(400);
    expect(fromTwin.headers.get('access-control-allow-origin')).toBe(twin);
    const fromElsewhere = await tokenRequest('http://elsewhere.test');
    expect(fromElsewhere.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('shares the port with the API: /oidc only (not /oidcx), and a 503 page until the provider is up', async () => {
    const origin = new URL(provider.issuer).origin;
    const beside = await fetch(`${origin}/oidcx/jwks`);
    expect(beside.status).toBe(404);
    expect(((await beside.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
    current = null;
    try {
      const starting = await fetch(`${provider.issuer}/jwks`);
      expect(starting.status).toBe(503);
      expect(await starting.text()).toContain('The local sign-in is starting');
    } finally {
      current = provider;
    }
  });

  it('goes back to the dashboard with access_denied when the sign-in is cancelled', async () => {
    const jar = new CookieJar();
    const page = await signInPage(jar);
    const cancel = formAction(page.body, provider.issuer).replace(/\/login$/, '/cancel');
    const landed = await followProvider(jar, client, await browse(jar, cancel, { form: {} }));
    expect(new URL(landed.location!).searchParams.get('error')).toBe('access_denied');
  });

  it('signs in a local user added at run time, as themselves', async () => {
    provider.addLocalUser('Second.Person@Localhost.Test', 'a-long-password');
    const { idToken } = await signInForIdToken(client, 'second.person@localhost.test', 'a-long-password');
    const identity = await verifier.verify([`Bearer ${idToken}`]);
    expect(identity.email).toBe('second.person@localhost.test');
    const first = await verifier.verify([`Bearer ${(await signInForIdToken(client, developer().email, developer().password)).idToken}`]);
    expect(identity.subject).not.toBe(first.subject);
  });

  it('keeps the session until sign-out; after it the sign-in page is shown again', async () => {
    const { idToken, jar } = await signInForIdToken(client, developer().email, developer().password);
    // Signed in: a second authorization comes straight back with a code.
    const again = await signInPage(jar);
    expect(new URL(again.location!).searchParams.get('code')).toBeTruthy();

    const endSession = new URL(`${provider.issuer}/session/end`);
    endSession.search = new URLSearchParams({ id_token_hint: idToken, post_logout_redirect_uri: provider.dashboardUrl, client_id: client.clientId }).toString();
    const confirm = await browse(jar, endSession.href);
    expect(confirm.status).toBe(200);
    expect(confirm.body).toContain('<button type="submit" form="op.logoutForm" name="logout" value="yes" autofocus>Sign out</button>');
    const action = /<form id="op.logoutForm" method="post" action="([^"]+)">/.exec(confirm.body)![1]!;
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(confirm.body)![1]!;
    const signedOut = await followProvider(jar, client, await browse(jar, new URL(action, provider.issuer).href, { form: { xsrf, logout: 'yes' } }));
    expect(signedOut.location).toBe(provider.dashboardUrl);

    const afterwards = await signInPage(jar);
    expect(afterwards.status).toBe(200);
    expect(afterwards.body).toContain('<h1>Sign in</h1>');
  });

  it('keeps its signing key and the development password in the state folder, readable by its owner only', async () => {
    expect(provider.developmentAccount.created).toBe(true);
    expect(provider.developmentAccount.file).toBe(join(dataDir, OIDC_STATE_FILE));
    expect(statSync(join(dataDir, OIDC_STATE_FILE)).mode & 0o777).toBe(0o600);
    const { idToken } = await signInForIdToken(client, developer().email, developer().password);

    // A restart: a new provider on the same folder and origin.
    current = await startLocalOpenIdProvider({ origin: new URL(provider.issuer).origin, dataDir });
    try {
      expect(current.developmentAccount).toMatchObject({ created: false, email: developer().email, password: developer().password });
      const afterRestart = new JoseIdentityVerifier({ issuer: current.issuer, clientId: current.clientId });
      expect((await afterRestart.verify([`Bearer ${idToken}`])).email).toBe(developer().email);
      await signInForIdToken(client, developer().email, developer().password);
    } finally {
      current = provider;
    }
  });

  it('without a state folder makes a new key and password each start', async () => {
    const inMemory = await startLocalOpenIdProvider({ origin: new URL(provider.issuer).origin });
    expect(inMemory.developmentAccount.file).toBeNull();
    expect(inMemory.developmentAccount.password).not.toBe(developer().password);
    current = inMemory;
    try {
      const { idToken } = await signInForIdToken(client, inMemory.developmentAccount.email, inMemory.developmentAccount.password);
      // Its key is not the folder's: the first provider's keys do not verify it.
      current = provider;
      const error = await new JoseIdentityVerifier({ issuer: provider.issuer, clientId: provider.clientId })
        .verify([`Bearer ${idToken}`])
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServiceError);
      expect((error as ServiceError).status).toBe(401);
    } finally {
      current = provider;
    }
  });
});
