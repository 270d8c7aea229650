import { dnsHostResolver } from '../lambdas/adapters/dns-host-resolver';
import type { AccountServices } from '../lambdas/ports/account-services';
import type { IdentityVerifier } from '../lambdas/ports/identity-verifier';
import type { EmbeddedStack } from './embedded-stack';

/** The account API's ports on the embedded stack: the same DynamoDB adapters against dynalite, and the local issuer's verifier. */
export function embeddedAccountServices(stack: EmbeddedStack, identity: IdentityVerifier): AccountServices {
  const { keys, meter, requestLog, clock, tiers } = stack.services;
  if (!requestLog) throw new Error('the embedded stack has no request log');
  return {
    accounts: stack.accounts,
    keys,
    meter,
    requestLog,
    webhooks: stack.webhooks,
    resolver: dnsHostResolver,
    destinationMode: 'local',
    identity,
    clock,
    ...(tiers ? { tiers } : {}),
  };
}
