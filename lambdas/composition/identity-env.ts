import { type IdentityVerifierConfig, JoseIdentityVerifier } from '../adapters/oidc/jose-identity-verifier';
import type { IdentityVerifier } from '../ports/identity-verifier';

/** The account API functions' sign-in configuration (lib/ sets them from the user pool and its dashboard client). */
export const OIDC_ISSUER_ENV = 'OIDC_ISSUER';
export const OIDC_CLIENT_ID_ENV = 'OIDC_CLIENT_ID';
/** Optional: skips discovery (Cognito's is `<issuer>/.well-known/jwks.json`). */
export const OIDC_JWKS_URI_ENV = 'OIDC_JWKS_URI';

// Not aws.ts's requireEnv: importing it would bundle the DynamoDB and API Gateway clients too.
function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (!value) throw new Error(`${name} is not set: give the function the user pool's issuer and the dashboard's client id`);
  return value;
}

export function identityConfigFromEnv(env: NodeJS.ProcessEnv): IdentityVerifierConfig {
  const jwksUri = env[OIDC_JWKS_URI_ENV];
  return { issuer: required(env, OIDC_ISSUER_ENV), clientId: required(env, OIDC_CLIENT_ID_ENV), ...(jwksUri ? { jwksUri } : {}) };
}

let verifier: IdentityVerifier | undefined;

/** One verifier a cold start: its key set is cached across invocations. */
export function awsIdentityVerifier(env: NodeJS.ProcessEnv = process.env): IdentityVerifier {
  verifier ??= new JoseIdentityVerifier(identityConfigFromEnv(env));
  return verifier;
}
