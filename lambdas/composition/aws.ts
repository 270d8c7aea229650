import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoRecordStore } from '../adapters/aws/dynamo-record-store';
import { systemClock } from '../ports/clock';
import type { RecordStore } from '../ports/record-store';
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
  let store: RecordStore | undefined;
  let index: SearchIndex | undefined;
  return {
    get store() {
      store ??= new DynamoRecordStore(new DynamoDBClient({}), requireEnv(env, 'RECORDS_TABLE_NAME'));
      return store;
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
