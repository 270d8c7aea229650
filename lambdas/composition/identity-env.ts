import { type IdentityVerifierConfig, JoseIdentityVerifier } from '../adapters/oidc/jose-identity-verifier';
import type { IdentityVerifier } from '../ports/identity-verifier';
import { FUNCTION_ENV, requireEnv } from './function-env';

export function identityConfigFromEnv(env: NodeJS.ProcessEnv): IdentityVerifierConfig {
  const jwksUri = env[FUNCTION_ENV.accountTokenJwksUri];
  return {
    issuer: requireEnv(env, FUNCTION_ENV.accountTokenIssuer),
    clientId: requireEnv(env, FUNCTION_ENV.accountTokenAudience),
    ...(jwksUri ? { jwksUri } : {}),
  };
}

let verifier: IdentityVerifier | undefined;

/** One verifier a cold start: its key set is cached across invocations. */
export function awsIdentityVerifier(env: NodeJS.ProcessEnv = process.env): IdentityVerifier {
  verifier ??= new JoseIdentityVerifier(identityConfigFromEnv(env));
  return verifier;
}
