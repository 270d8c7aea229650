import { ServiceError } from '../errors';

/**
 * The rules an ID token's claims must meet once its signature, issuer, audience and lifetime
 * have been checked (lambdas/adapters/oidc). Pure: the adapter hands the decoded claims in.
 */

export interface VerifiedIdentity {
  /** The issuer's stable id of the person (`sub`). */
  subject: string;
  /** Lower-cased, and verified by the issuer. */
  email: string;
}

/** Signing algorithms accepted: RS256 is what Cognito and the local provider sign with; never `none` or an HMAC. */
export const ACCEPTED_ALGORITHMS = ['RS256'] as const;
/** Clock skew allowed between the issuer and this service on `exp`, `nbf` and `iat`. */
export const CLOCK_TOLERANCE_SECONDS = 30;

/** A 401 whose message says what was wrong in general terms: never the token, its claims or the e-mail. */
export function invalidIdentityToken(reason: string): ServiceError {
  return new ServiceError(401, 'UNAUTHORIZED', reason);
}

/** The caller's issuer could not be reached for its keys: the token may be fine, so not a 401. */
export function identityProviderUnavailable(): ServiceError {
  return new ServiceError(503, 'INTERNAL', 'The sign-in provider cannot be reached; try again shortly');
}

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/**
 * The token of exactly one `Authorization: Bearer <jwt>` header (scheme in any case). Anything
 * else is a 401 that never echoes what was sent.
 */
export function bearerTokenOf(values: readonly string[] | undefined): string {
  if (!values || values.length === 0) throw invalidIdentityToken('Missing Authorization header: send Authorization: Bearer <ID token>');
  if (values.length > 1) throw invalidIdentityToken('Send exactly one Authorization header');
  const match = /^(\S+) (\S+)$/.exec(values[0]!.trim());
  if (!match || match[1]!.toLowerCase() !== 'bearer') throw invalidIdentityToken('Authorization must use the Bearer scheme: Authorization: Bearer <ID token>');
  if (!JWT_SHAPE.test(match[2]!)) throw invalidIdentityToken('Malformed ID token');
  return match[2]!;
}

/**
 * Cognito sends `email_verified` as a boolean in ID tokens but as the string "true" from some
 * flows (federated and migrated users); both mean verified, anything else does not.
 */
export function isEmailVerified(claim: unknown): boolean {
  return claim === true || claim === 'true';
}

/**
 * The identity of verified claims: a subject, an e-mail the issuer verified, and, when the issuer
 * says what kind of token it is (Cognito's `token_use`), an ID token rather than an access token.
 */
export function identityOfClaims(claims: Record<string, unknown>): VerifiedIdentity {
  if (claims.token_use !== undefined && claims.token_use !== 'id') throw invalidIdentityToken('Send the ID token, not an access token');
  const subject = claims.sub;
  if (typeof subject !== 'string' || subject === '') throw invalidIdentityToken('The ID token has no subject');
  const email = claims.email;
  if (typeof email !== 'string' || !/^[^\s@]+@[^\s@]+$/.test(email))
    throw invalidIdentityToken('The ID token carries no e-mail address; sign in with the email scope');
  if (!isEmailVerified(claims.email_verified)) throw invalidIdentityToken('The e-mail address of this sign-in is not verified');
  return { subject, email: email.toLowerCase() };
}
