import { createRemoteJWKSet, errors, type JWTVerifyGetKey, jwtVerify } from 'jose';
import {
  ACCEPTED_ALGORITHMS,
  bearerTokenOf,
  CLOCK_TOLERANCE_SECONDS,
  identityOfClaims,
  identityProviderUnavailable,
  invalidIdentityToken,
} from '../../core/auth/identity-token';
import { ServiceError } from '../../core/errors';
import type { IdentityVerifier, VerifiedIdentity } from '../../ports/identity-verifier';

export interface IdentityVerifierConfig {
  /** The issuer exactly as its tokens' `iss` says (Cognito: the user pool's issuer URL; locally `<server>/oidc`). */
  issuer: string;
  /** The dashboard's client id: ID tokens carry it as their audience. */
  clientId: string;
  /** The issuer's key set; discovered from `<issuer>/.well-known/openid-configuration` when omitted. */
  jwksUri?: string;
}

const DISCOVERY_TIMEOUT_MS = 5_000;

/**
 * Verifies dashboard ID tokens with `jose` against the issuer's JWKS (fetched on first use, cached,
 * and fetched again when a token names a key it has not seen): RS256 only, issuer, audience and
 * lifetime with a small clock tolerance, then the claim rules of core/auth/identity-token.ts.
 * One code path for Cognito and the local provider.
 */
export class JoseIdentityVerifier implements IdentityVerifier {
  private keySet: Promise<JWTVerifyGetKey> | null = null;

  constructor(private readonly config: IdentityVerifierConfig) {}

  async verify(authorization: readonly string[] | undefined): Promise<VerifiedIdentity> {
    const token = bearerTokenOf(authorization);
    const keys = await this.keys();
    try {
      const { payload } = await jwtVerify(token, keys, {
        issuer: this.config.issuer,
        audience: this.config.clientId,
        algorithms: [...ACCEPTED_ALGORITHMS],
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        requiredClaims: ['exp', 'iat', 'sub'],
      });
      return identityOfClaims(payload);
    } catch (error) {
      throw tokenError(error);
    }
  }

  private keys(): Promise<JWTVerifyGetKey> {
    this.keySet ??= this.resolveKeySet().catch((error: unknown) => {
      // Not cached: the next request tries the issuer again.
      this.keySet = null;
      throw error instanceof ServiceError ? error : identityProviderUnavailable();
    });
    return this.keySet;
  }

  private async resolveKeySet(): Promise<JWTVerifyGetKey> {
    const jwksUri = this.config.jwksUri ?? (await discoverJwksUri(this.config.issuer));
    return createRemoteJWKSet(new URL(jwksUri));
  }
}

/** The `jwks_uri` of the issuer's discovery document, which must name the same issuer (OpenID Connect Discovery 1.0, section 4.3). */
export async function discoverJwksUri(issuer: string): Promise<string> {
  const response = await fetch(`${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS) });
  if (!response.ok) throw new Error(`discovery answered ${response.status}`);
  const document = (await response.json()) as { issuer?: unknown; jwks_uri?: unknown };
  if (document.issuer !== issuer) throw new Error('the discovery document names another issuer');
  if (typeof document.jwks_uri !== 'string') throw new Error('the discovery document has no jwks_uri');
  return document.jwks_uri;
}

/** What a failed verification means to the caller, in words that name no claim value. */
function tokenError(error: unknown): ServiceError {
  if (error instanceof ServiceError) return error;
  if (error instanceof errors.JWTExpired) return invalidIdentityToken('The ID token has expired; sign in again');
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'iss') return invalidIdentityToken('The ID token was issued by another issuer');
    if (error.claim === 'aud') return invalidIdentityToken('The ID token was issued for another client');
    if (error.claim === 'nbf' || error.claim === 'iat') return invalidIdentityToken('The ID token is not valid yet');
    return invalidIdentityToken('The ID token lacks a required claim');
  }
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported)
    return invalidIdentityToken('The ID token is not signed with RS256');
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWSSignatureVerificationFailed) {
    return invalidIdentityToken("The ID token is not signed by the issuer's keys");
  }
  // The key set itself could not be fetched or read: the issuer's fault, not the token's.
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid || !(error instanceof errors.JOSEError) || error.code === 'ERR_JOSE_GENERIC') {
    return identityProviderUnavailable();
  }
  return invalidIdentityToken('Malformed ID token');
}
