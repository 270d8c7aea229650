import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoAccountStore } from '../adapters/aws/dynamo-account-store';
import { DynamoKeyStore } from '../adapters/aws/dynamo-key-store';
import { DynamoRequestLog } from '../adapters/aws/dynamo-request-log';
import { DynamoUsageMeter } from '../adapters/aws/dynamo-usage-meter';
import { DynamoWebhookStore } from '../adapters/aws/dynamo-webhook-store';
import { dnsHostResolver } from '../adapters/dns-host-resolver';
import type { TierPolicies } from '../core/auth/tier-quotas';
import type { AccountServices } from '../ports/account-services';
import type { AccountStore } from '../ports/account-store';
import { systemClock } from '../ports/clock';
import type { IdentityVerifier } from '../ports/identity-verifier';
import type { KeyStore } from '../ports/key-store';
import type { RequestLog } from '../ports/request-log';
import { SECRETS_WITHHELD } from '../ports/secret-sealer';
import type { UsageMeter } from '../ports/usage-meter';
import type { WebhookStore } from '../ports/webhook-store';
import { traced } from './aws-telemetry';
import { FUNCTION_ENV, requireEnv } from './function-env';
import { awsIdentityVerifier } from './identity-env';
import { tierPoliciesFromEnv } from './tier-quotas-env';

/**
 * The account API's composition root: the records table's adapters and the ID token verifier,
 * each built on first use, once per cold start. Only the DynamoDB client: not aws.ts, which
 * would bundle the API Gateway client, nor any search or embedding adapter.
 */

const tableName = (env: NodeJS.ProcessEnv) => requireEnv(env, FUNCTION_ENV.recordsTableName);

export function createAwsAccountServices(env: NodeJS.ProcessEnv = process.env): AccountServices {
  let client: DynamoDBClient | undefined;
  let accounts: AccountStore | undefined;
  let keys: KeyStore | undefined;
  let meter: UsageMeter | undefined;
  let requestLog: RequestLog | undefined;
  let tiers: TierPolicies | undefined;
  let webhooks: WebhookStore | undefined;
  const dynamo = () => (client ??= traced(new DynamoDBClient({})));
  return {
    get accounts() {
      accounts ??= new DynamoAccountStore(dynamo(), tableName(env));
      return accounts;
    },
    get keys() {
      keys ??= new DynamoKeyStore(dynamo(), tableName(env));
      return keys;
    },
    get meter() {
      meter ??= new DynamoUsageMeter(dynamo(), tableName(env));
      return meter;
    },
    get requestLog() {
      requestLog ??= new DynamoRequestLog(dynamo(), tableName(env));
      return requestLog;
    },
    // Secrets stay sealed: the account API lists subscriptions and never shows or writes a secret.
    get webhooks() {
      webhooks ??= new DynamoWebhookStore(dynamo(), tableName(env), SECRETS_WITHHELD);
      return webhooks;
    },
    get identity(): IdentityVerifier {
      return awsIdentityVerifier(env);
    },
    get tiers() {
      tiers ??= tierPoliciesFromEnv(env);
      return tiers;
    },
    resolver: dnsHostResolver,
    destinationMode: 'aws',
    clock: systemClock,
  };
}

let cached: AccountServices | undefined;

export function awsAccountServices(): AccountServices {
  cached ??= createAwsAccountServices();
  return cached;
}
