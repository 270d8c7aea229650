import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importJWK, type JWK, SignJWT } from 'jose';
import type { Embedder } from '../../lambdas/ports/embedder';
import { embeddedAccountServices } from '../../local/account-services';
import { localAccountRoutes, localAuthorizer, localRoutes } from '../../local/api-routes';
import { type EmbeddedStack, type EmbeddedStackOptions, startEmbeddedStack } from '../../local/embedded-stack';
import { createApiServer, listen } from '../../local/http-server';
import { ensureLocalKeys, type LocalKeys } from '../../local/local-keys';
import { type LocalOpenIdProvider, localIdentityVerifier, localOpenIdMount, startLocalOpenIdProvider } from '../../local/oidc/local-openid-provider';
import { OIDC_STATE_FILE } from '../../local/oidc/provider-state';
import { signInForIdToken } from './oidc-code-flow';
import { OpenApiConformance } from './openapi-conformance';

/**
 * The local server as `npm start` runs it for the dashboard: the public API, the account API and
 * the local OpenID provider on one port, over real HTTP. Every account API answer is checked
 * against docs/account-api.json.
 */

export interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

export interface AccountApiServer {
  baseUrl: string;
  stack: EmbeddedStack;
  provider: LocalOpenIdProvider;
  /** One key per tier (no account), as `npm start` makes them. */
  keys: LocalKeys;
  /** A real ID token of a person the local provider knows (added on first use). */
  idTokenFor(email: string): Promise<string>;
  /**
   * An ID token signed with the local issuer's own key but with claims of the test's choosing
   * (expired, another audience, an unverified e-mail): what only a forger or a bug could send.
   */
  forgedIdToken(claims: Record<string, unknown>): Promise<string>;
  /** A call to the account API (path from /account on) with `token` as Bearer (null: no Authorization). */
  call(method: string, path: string, options?: { token?: string | null; body?: unknown; headers?: Record<string, string> }): Promise<Answer>;
  close(): Promise<void>;
}

/** The account API needs no catalogue: no records, no model to load. */
const NO_VECTORS: Embedder = { space: { embedder: 'test:no-vectors', dimensions: 4 }, embed: async (texts) => texts.map(() => null) };
const ACCOUNT_DOCUMENT = new URL('../../docs/account-api.json', import.meta.url);
const PASSWORD = 'a-long-test-password';

export async function startAccountApiServer(options: EmbeddedStackOptions = {}): Promise<AccountApiServer> {
  const stack = await startEmbeddedStack({ seed: false, embedder: NO_VECTORS, semanticFloor: 0.5, ...options });
  const { keys } = await ensureLocalKeys(stack.services);
  let provider: LocalOpenIdProvider | null = null;
  const accountServices = embeddedAccountServices(
    stack,
    localIdentityVerifier(() => provider),
  );
  const server: Server = createApiServer([...localRoutes(stack.services), ...localAccountRoutes(accountServices)], localAuthorizer(stack.services), {
    mounts: [localOpenIdMount(() => provider)],
  });
  const baseUrl = await listen(server, 0);
  // A state folder of its own, so that forgedIdToken can read the provider's signing key.
  const providerDir = mkdtempSync(join(tmpdir(), 'gcf-account-oidc-'));
  const started = await startLocalOpenIdProvider({ origin: new URL(baseUrl).origin, dataDir: providerDir });
  const signingKey = (JSON.parse(readFileSync(join(providerDir, OIDC_STATE_FILE), 'utf8')) as { signingKey: JWK }).signingKey;
  provider = started;
  const client = { issuer: started.issuer, clientId: started.clientId, redirectUri: started.redirectUris[0]! };
  const conformance = new OpenApiConformance(JSON.parse(readFileSync(ACCOUNT_DOCUMENT, 'utf8')));
  const known = new Set<string>();
  return {
    baseUrl,
    stack,
    provider: started,
    keys,
    async idTokenFor(email) {
      if (!known.has(email)) started.addLocalUser(email, PASSWORD);
      known.add(email);
      return (await signInForIdToken(client, email, PASSWORD)).idToken;
    },
    async forgedIdToken(claims) {
      const now = Math.floor(Date.now() / 1000);
      const payload = {
        iss: started.issuer,
        aud: started.clientId,
        sub: 'forged-subject',
        iat: now - 60,
        exp: now + 600,
        email: 'forged@example.org',
        email_verified: true,
        ...claims,
      };
      return new SignJWT(payload).setProtectedHeader({ alg: 'RS256', kid: signingKey.kid! }).sign(await importJWK(signingKey, 'RS256'));
    },
    async call(method, path, { token = null, body, headers = {} } = {}) {
      const response = await fetch(`${baseUrl}${path}`, {
        method,
        headers: {
          ...(token === null ? {} : { Authorization: `Bearer ${token}` }),
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
          ...headers,
        },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // Left as text for the assertion to show.
      }
      conformance.assertConforms(method, new URL(response.url).pathname, response.status, response.headers, parsed);
      return { status: response.status, body: parsed, headers: response.headers };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await stack.close();
      rmSync(providerDir, { recursive: true, force: true });
    },
  };
}
