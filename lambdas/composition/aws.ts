import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoChangeOutbox } from '../adapters/aws/dynamo-change-outbox';
import { DynamoRecordStore } from '../adapters/aws/dynamo-record-store';
import { PendingSearchIndex } from '../adapters/aws/pending-search-index';
import type { IndexerPorts } from '../core/use-cases/index-record-changes';
import { systemClock } from '../ports/clock';
import type { RecordStore } from '../ports/record-store';
import type { SearchIndex } from '../ports/search-index';
import type { Services } from '../ports/services';

/**
 * The composition root of the Lambdas. Each function is bound only to what its route needs
 * (ServiceFunction.bind* sets the env var and the IAM grant together), so adapters are built
 * lazily, on first use, once per cold start: a list function never needs the table name.
 */

function requireEnv(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (!value) throw new Error(`${name} is not set: bind this function to the resource in lib/api-routes.ts`);
  return value;
}

export function createAwsServices(env: NodeJS.ProcessEnv = process.env): Services {
  let store: RecordStore | undefined;
  let index: SearchIndex | undefined;
  return {
    get store() {
      store ??= new DynamoRecordStore(new DynamoDBClient({}), requireEnv(env, 'RECORDS_TABLE_NAME'));
      return store;
    },
    get index() {
      index ??= new PendingSearchIndex(requireEnv(env, 'SEARCH_DOMAIN_ENDPOINT'));
      return index;
    },
    clock: systemClock,
  };
}

/** The indexer's ports: the search index it writes and the outbox in the records table. */
export function createAwsIndexerPorts(env: NodeJS.ProcessEnv = process.env): IndexerPorts {
  const client = new DynamoDBClient({});
  return {
    index: new PendingSearchIndex(requireEnv(env, 'SEARCH_DOMAIN_ENDPOINT')),
    outbox: new DynamoChangeOutbox(client, requireEnv(env, 'RECORDS_TABLE_NAME')),
    clock: systemClock,
  };
}

let cachedIndexerPorts: IndexerPorts | undefined;

export function awsIndexerPorts(): IndexerPorts {
  cachedIndexerPorts ??= createAwsIndexerPorts();
  return cachedIndexerPorts;
}

let cached: Services | undefined;

export function awsServices(): Services {
  cached ??= createAwsServices();
  return cached;
}
