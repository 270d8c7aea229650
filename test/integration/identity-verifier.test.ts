import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JoseIdentityVerifier } from '../../lambdas/adapters/oidc/jose-identity-verifier';
import { ServiceError } from '../../lambdas/core/errors';

/**
 * The verifier against an issuer on loopback (its discovery document and JWKS over real HTTP),
 * with tokens signed here by jose: what it accepts, and each way a token is refused.
 */

type SigningKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

interface TestIssuer {
  issuer: string;
  key: SigningKey;
  kid: string;
  server: Server;
  /** Discovery and JWKS requests answered so far. */
  requests: string[];
}

const CLIENT_ID = 'dashboard-client';
const issuers: TestIssuer[] = [];

async function startIssuer(): Promise<TestIssuer> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const kid = `key-${issuers.length}`;
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}/pool`;
    res.setHeader('content-type', 'application/json');
    if (req.url === '/pool/.well-known/openid-configuration') return res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks.json` }));
    if (req.url === '/pool/jwks.json') return res.end(JSON.stringify({ keys: [jwk] }));
    res.statusCode = 404;
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const started = { issuer: `http://127.0.0.1:${(server.address() as AddressInfo).port}/pool`, key: privateKey, kid, server, requests };
  issuers.push(started);
  return started;
}

let issuer: TestIssuer;
let otherIssuer: TestIssuer;
let verifier: JoseIdentityVerifier;

beforeAll(async () => {
  issuer = await startIssuer();
  otherIssuer = await startIssuer();
  verifier = new JoseIdentityVerifier({ issuer: issuer.issuer, clientId: CLIENT_ID });
});
afterAll(async () => {
  for (const { server } of issuers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const nowSeconds = () => Math.floor(Date.now() / 1000);

function sign(
  claims: JWTPayload,
  options: { by?: TestIssuer; issuer?: string; audience?: string; expiresAt?: number; issuedAt?: number } = {},
): Promise<string> {
  const by = options.by ?? issuer;
  return new SignJWT({ email: 'Dev@Example.org', email_verified: true, ...claims })
    .setProtectedHeader({ alg: 'RS256', kid: by.kid })
    .setSubject('person-1')
    .setIssuer(options.issuer ?? by.issuer)
    .setAudience(options.audience ?? CLIENT_ID)
    .setIssuedAt(options.issuedAt ?? nowSeconds())
    .setExpirationTime(options.expiresAt ?? nowSeconds() + 600)
    .sign(by.key);
}

async function refusal(authorization: string[] | undefined, by: JoseIdentityVerifier = verifier): Promise<ServiceError> {
  const error = await by.verify(authorization).then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof ServiceError)) throw new Error(`expected a ServiceError, got ${String(error)}`);
  return error;
}

const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('JoseIdentityVerifier', () => {
  it("accepts the issuer's token: its subject and lower-cased e-mail, the keys found by discovery", async () => {
    const identity = await verifier.verify([`Bearer ${await sign({})}`]);
    expect(identity).toEqual({ subject: 'person-1', email: 'dev@example.org' });
    expect(issuer.requests).toEqual(['/pool/.well-known/openid-configuration', '/pool/jwks.json']);
  });

  it('takes email_verified as the string "true", and a Cognito ID token (token_use id)', async () => {
    expect((await verifier.verify([`Bearer ${await sign({ email_verified: 'true', token_use: 'id' })}`])).email).toBe('dev@example.org');
  });

  it('takes a token a few seconds past its expiry (clock skew) and a configured JWKS without discovery', async () => {
    const direct = new JoseIdentityVerifier({ issuer: issuer.issuer, clientId: CLIENT_ID, jwksUri: `${issuer.issuer}/jwks.json` });
    const before = issuer.requests.length;
    const token = await sign({}, { issuedAt: nowSeconds() - 120, expiresAt: nowSeconds() - 5 });
    expect((await direct.verify([`Bearer ${token}`])).subject).toBe('person-1');
    expect(issuer.requests.slice(before)).toEqual(['/pool/jwks.json']);
  });

  it.each([
    ['wrong audience', () => sign({}, { audience: 'another-client' }), 'another client'],
    ['expired', () => sign({}, { issuedAt: nowSeconds() - 7200, expiresAt: nowSeconds() - 3600 }), 'expired'],
    ['an unverified e-mail', () => sign({ email_verified: false }), 'not verified'],
    ['the string "false" for email_verified', () => sign({ email_verified: 'false' }), 'not verified'],
    ['a Cognito access token', () => sign({ token_use: 'access' }), 'not an access token'],
    ['no e-mail', () => sign({ email: undefined }), 'no e-mail'],
    ['the issuer named but signed by another key', () => sign({}, { by: otherIssuer, issuer: issuer.issuer }), "issuer's keys"],
    ["another issuer's token (its own key)", () => sign({}, { by: otherIssuer }), "issuer's keys"],
    ['another issuer named (even with a key the issuer publishes)', () => sign({}, { issuer: otherIssuer.issuer }), 'another issuer'],
  ])('refuses a token with %s: 401 UNAUTHORIZED, no token echoed', async (_, token, reason) => {
    const sent = await token();
    const error = await refusal([`Bearer ${sent}`]);
    expect(error.status).toBe(401);
    expect(error.code).toBe('UNAUTHORIZED');
    expect(error.message).toContain(reason);
    expect(error.message).not.toContain(sent.slice(0, 20));
    expect(error.message.toLowerCase()).not.toContain('dev@example.org');
  });

  it('refuses alg none and HS256 (even keyed with the public key material)', async () => {
    const claims = { sub: 'person-1', iss: issuer.issuer, aud: CLIENT_ID, iat: nowSeconds(), exp: nowSeconds() + 600, email: 'a@b.c', email_verified: true };
    const none = `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url(claims)}.`;
    expect((await refusal([`Bearer ${none}`])).message).toContain('not signed with RS256');
    const hs256 = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: issuer.kid }).sign(new TextEncoder().encode('n'.repeat(32)));
    const error = await refusal([`Bearer ${hs256}`]);
    expect(error.status).toBe(401);
    expect(error.message).toContain('not signed with RS256');
  });

  it('refuses a tampered payload (the signature no longer matches)', async () => {
    const [header, , signature] = (await sign({})).split('.');
    const forged = `${header}.${base64url({ sub: 'person-2', iss: issuer.issuer, aud: CLIENT_ID, exp: nowSeconds() + 600, iat: nowSeconds(), email: 'x@y.z', email_verified: true })}.${signature}`;
    expect((await refusal([`Bearer ${forged}`])).message).toContain("issuer's keys");
  });

  it.each([
    ['garbage', ['Bearer garbage'], 'Malformed ID token'],
    ['three parts of garbage', ['Bearer aaa.bbb.ccc'], 'Malformed ID token'],
    ['no bearer', undefined, 'Missing Authorization header'],
    ['an API key scheme', ['Basic dXNlcjpwYXNz'], 'Bearer scheme'],
  ])('refuses %s with a 401', async (_, header, reason) => {
    const error = await refusal(header);
    expect(error.status).toBe(401);
    expect(error.message).toContain(reason);
  });

  it('answers 503 when the issuer cannot be reached, and recovers once it can', async () => {
    const unreachable = new JoseIdentityVerifier({ issuer: 'http://127.0.0.1:9/pool', clientId: CLIENT_ID });
    const error = await refusal([`Bearer ${await sign({})}`], unreachable);
    expect(error.status).toBe(503);
    // A discovery document naming another issuer is refused too.
    const mismatched = new JoseIdentityVerifier({ issuer: `${issuer.issuer}/`, clientId: CLIENT_ID });
    expect((await refusal([`Bearer ${await sign({})}`], mismatched)).status).toBe(503);
    expect((await verifier.verify([`Bearer ${await sign({})}`])).subject).toBe('person-1');
  });
});
