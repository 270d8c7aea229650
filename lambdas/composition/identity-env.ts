import { type IdentityVerifierConfig, JoseIdentityVerifier } from '../adapters/oidc/jose-identity-verifier';
import type { IdentityVerifier } from '../ports/identity-verifier';
import { FUNCTION_ENV } from './function-env';

// Not aws.ts's requireEnv: importing it would bundle the DynamoDB and API Gateway clients too.
function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (!value) throw new Error(`${name} is not set: give the function the user pool's issuer and the dashboard's client id`);
  return value;
}

export function identityConfigFromEnv(env: NodeJS.ProcessEnv): IdentityVerifierConfig {
  const jwksUri = env[FUNCTION_ENV.accountTokenJwksUri];
  return {
    issuer: required(env, FUNCTION_ENV.accountTokenIssuer),
    clientId: required(env, FUNCTION_ENV.accountTokenAudience),
    ...(jwksUri ? { jwksUri } : {}),
  };
}

let verifier: IdentityVerifier | undefined;

/** One verifier a cold start: its key set is cached across invocations. */
export function awsIdentityVerifier(env: NodeJS.ProcessEnv = process.env): IdentityVerifier {
  verifier ??= new JoseIdentityVerifier(identityConfigFromEnv(env));
  return verifier;
}
