import { createHash, randomBytes } from 'node:crypto';

/**
 * The dashboard's side of a sign-in, over real HTTP as a browser would make it: the authorization
 * code flow with PKCE against the local provider, following redirects by hand and keeping cookies.
 * Tests of the account API use it to get a real ID token.
 */

export class CookieJar {
  private readonly cookies = new Map<string, string>();

  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at).trim();
      const value = pair!.slice(at + 1);
      // An expired or emptied cookie is the server deleting it.
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

export interface CodeFlowClient {
  /** The provider's issuer, e.g. http://127.0.0.1:PORT/oidc. */
  issuer: string;
  clientId: string;
  redirectUri: string;
}

export interface Step {
  status: number;
  location: string | null;
  body: string;
}

/** One request with the jar's cookies; redirects are returned, not followed. */
export async function browse(jar: CookieJar, url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Step> {
  const headers: Record<string, string> = { cookie: jar.header() };
  let body: string | undefined;
  if (init.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(init.form).toString();
  }
  const response = await fetch(url, { method: init.method ?? (init.form ? 'POST' : 'GET'), headers, body, redirect: 'manual' });
  jar.take(response);
  const location = response.headers.get('location');
  return { status: response.status, location: location === null ? null : new URL(location, url).href, body: await response.text() };
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** The authorization request's URL (PKCE S256 unless `challenge` is null). */
export function authorizationUrl(client: CodeFlowClient, options: { state: string; challenge: string | null; prompt?: string }): string {
  const url = new URL(`${client.issuer}/auth`);
  url.search = new URLSearchParams({
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    response_type: 'code',
    scope: 'openid email',
    state: options.state,
    nonce: randomBytes(8).toString('hex'),
    ...(options.challenge === null ? {} : { code_challenge: options.challenge, code_challenge_method: 'S256' }),
    ...(options.prompt ? { prompt: options.prompt } : {}),
  }).toString();
  return url.href;
}

/** Follows redirects from `step` while they stay on the provider; returns the first step that leaves it or is not a redirect. */
export async function followProvider(jar: CookieJar, client: CodeFlowClient, step: Step): Promise<Step> {
  let current = step;
  while (current.location?.startsWith(client.issuer)) current = await browse(jar, current.location);
  return current;
}

/** The sign-in form's action in an interaction page. */
export function formAction(page: string, issuer: string): string {
  const action = /<form method="post" action="([^"]+\/login)">/.exec(page)?.[1];
  if (!action) throw new Error(`no sign-in form in the page:\n${page.slice(0, 500)}`);
  return new URL(action.replaceAll('&amp;', '&'), issuer).href;
}

export async function exchangeCode(client: CodeFlowClient, code: string, verifier: string | null): Promise<{ status: number; body: Record<string, unknown> }> {
  const form = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: client.redirectUri, client_id: client.clientId });
  if (verifier !== null) form.set('code_verifier', verifier);
  const response = await fetch(`${client.issuer}/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** A whole sign-in (authorize, sign-in form, code, token exchange); the ID token and the jar holding the provider's session. */
export async function signInForIdToken(
  client: CodeFlowClient,
  email: string,
  password: string,
  jar = new CookieJar(),
): Promise<{ idToken: string; jar: CookieJar }> {
  const { verifier, challenge } = pkcePair();
  const state = randomBytes(8).toString('hex');
  const login = await followProvider(jar, client, await browse(jar, authorizationUrl(client, { state, challenge })));
  let landed = login;
  if (login.status === 200) landed = await followProvider(jar, client, await browse(jar, formAction(login.body, client.issuer), { form: { email, password } }));
  const callback = new URL(landed.location ?? 'about:blank');
  const code = callback.searchParams.get('code');
  if (!code || callback.searchParams.get('state') !== state)
    throw new Error(`sign-in did not come back with a code: ${landed.status} ${landed.location ?? landed.body.slice(0, 300)}`);
  const tokens = await exchangeCode(client, code, verifier);
  if (typeof tokens.body.id_token !== 'string') throw new Error(`no ID token: ${JSON.stringify(tokens.body)}`);
  return { idToken: tokens.body.id_token, jar };
}
