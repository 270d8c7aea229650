import type { VerifiedIdentity } from '../core/auth/identity-token';

export type { VerifiedIdentity } from '../core/auth/identity-token';

/**
 * Who signed in to the developer dashboard: the ID token of `Authorization: Bearer <jwt>`,
 * checked against the issuer's published keys (Cognito in AWS, the local provider of `npm start`).
 */
export interface IdentityVerifier {
  /**
   * The Authorization header values in (every one sent), the token's subject and verified e-mail
   * out; a ServiceError 401 UNAUTHORIZED for a missing, malformed, forged, expired or foreign
   * token, and 503 when the issuer's keys cannot be fetched.
   */
  verify(authorization: readonly string[] | undefined): Promise<VerifiedIdentity>;
}
