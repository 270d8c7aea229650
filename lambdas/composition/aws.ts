import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoKeyStore } from '../adapters/aws/dynamo-key-store';
import { DynamoRecordStore } from '../adapters/aws/dynamo-record-store';
import { DynamoUsageMeter } from '../adapters/aws/dynamo-usage-meter';
import { systemClock } from '../ports/clock';
import type { KeyStore } from '../ports/key-store';
import type { RecordStore } from '../ports/record-store';
import type { UsageMeter } from '../ports/usage-meter';
import type { SearchIndex } from '../ports/search-index';
import type { Services } from '../ports/services';

/**
 * The composition root of the Lambdas. Each function is bound only to what its route needs
 * (ServiceFunction.bind* sets the env var and the IAM grant together), so adapters are built
 * lazily, on first use, once per cold start: a list function never needs the table name. The
 * OpenSearch client lives in aws-search.ts, so functions that never search do not bundle it.
 */

export function requireEnv(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (!value) throw new Error(`${name} is not set: bind this function to the resource in lib/api-routes.ts`);
  return value;
}

export function createAwsServices(env: NodeJS.ProcessEnv = process.env, searchIndex?: (env: NodeJS.ProcessEnv) => SearchIndex): Services {
  let client: DynamoDBClient | undefined;
  let store: RecordStore | undefined;
  let index: SearchIndex | undefined;
  let meter: UsageMeter | undefined;
  let keys: KeyStore | undefined;
  const dynamo = () => (client ??= new DynamoDBClient({}));
  return {
    get store() {
      store ??= new DynamoRecordStore(dynamo(), requireEnv(env, 'RECORDS_TABLE_NAME'));
      return store;
    },
    get meter() {
      meter ??= new DynamoUsageMeter(dynamo(), requireEnv(env, 'RECORDS_TABLE_NAME'));
      return meter;
    },
    get keys() {
      keys ??= new DynamoKeyStore(dynamo(), requireEnv(env, 'RECORDS_TABLE_NAME'));
      return keys;
    },
    get index() {
      if (!searchIndex) throw new Error('this function is not bound to the search domain: use awsSearchServices (composition/aws-search.ts)');
      index ??= searchIndex(env);
      return index;
    },
    clock: systemClock,
  };
}

let cached: Services | undefined;

/** For functions that read records by id. */
export function awsServices(): Services {
  cached ??= createAwsServices();
  return cached;
}
