import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ApiGatewayTierKeys } from '../adapters/aws/api-gateway-tier-keys';
import { DynamoKeyStore } from '../adapters/aws/dynamo-key-store';
import { DynamoRecordStore } from '../adapters/aws/dynamo-record-store';
import { DynamoRequestLog } from '../adapters/aws/dynamo-request-log';
import { DynamoUsageMeter } from '../adapters/aws/dynamo-usage-meter';
import type { TierPolicies } from '../core/auth/tier-quotas';
import { TIER_NAMES, type TierName } from '../core/auth/tiers';
import { semanticFloorOf } from '../core/search/relevance';
import { systemClock } from '../ports/clock';
import type { CursorKeySource } from '../ports/cursor-key';
import type { Embedder } from '../ports/embedder';
import type { KeyStore } from '../ports/key-store';
import type { RecordStore } from '../ports/record-store';
import type { RequestLog } from '../ports/request-log';
import type { SearchIndex } from '../ports/search-index';
import type { Services } from '../ports/services';
import type { TierUsageKeys } from '../ports/tier-usage-keys';
import type { UsageMeter } from '../ports/usage-meter';
import { awsTelemetry, traced } from './aws-telemetry';
import { FUNCTION_ENV, requireEnv } from './function-env';
import { tierPoliciesFromEnv } from './tier-quotas-env';

/** How a search function builds its search adapters (composition/aws-search.ts), kept out of other bundles. */
export interface SearchAdapters {
  index(env: NodeJS.ProcessEnv): SearchIndex;
  embedder(env: NodeJS.ProcessEnv): Embedder;
  /** The list cursors' signing key (deep paging). */
  cursorKeys(env: NodeJS.ProcessEnv): CursorKeySource;
}

/**
 * The composition root of the Lambdas. Each function is bound only to what its route needs
 * (ServiceFunction.bind* sets the env var and the IAM grant together), so adapters are built
 * lazily, on first use, once per cold start: a list function never needs the table name. The
 * OpenSearch client lives in aws-search.ts, so functions that never search do not bundle it.
 */

export { requireEnv };

export function createAwsServices(env: NodeJS.ProcessEnv = process.env, search?: SearchAdapters): Services {
  let client: DynamoDBClient | undefined;
  let store: RecordStore | undefined;
  let index: SearchIndex | undefined;
  let embedder: Embedder | undefined;
  let semanticFloor: number | undefined;
  let meter: UsageMeter | undefined;
  let requestLog: RequestLog | undefined;
  let keys: KeyStore | undefined;
  let tiers: TierPolicies | undefined;
  let cursorKeys: CursorKeySource | undefined;
  const dynamo = () => (client ??= traced(new DynamoDBClient({})));
  const searchAdapters = () => {
    if (!search) throw new Error('this function is not bound to search: use awsSearchServices (composition/aws-search.ts)');
    return search;
  };
  return {
    get store() {
      store ??= new DynamoRecordStore(dynamo(), requireEnv(env, 'RECORDS_TABLE_NAME'));
      return store;
    },
    get meter() {
      meter ??= new DynamoUsageMeter(dynamo(), requireEnv(env, 'RECORDS_TABLE_NAME'));
      return meter;
    },
    get requestLog() {
      requestLog ??= new DynamoRequestLog(dynamo(), requireEnv(env, 'RECORDS_TABLE_NAME'));
      return requestLog;
    },
    get keys() {
      keys ??= new DynamoKeyStore(dynamo(), requireEnv(env, 'RECORDS_TABLE_NAME'));
      return keys;
    },
    get index() {
      index ??= searchAdapters().index(env);
      return index;
    },
    get embedder() {
      embedder ??= searchAdapters().embedder(env);
      return embedder;
    },
    get semanticFloor() {
      semanticFloor ??= semanticFloorOf(this.embedder.space, env.SEMANTIC_FLOOR ? Number(env.SEMANTIC_FLOOR) : undefined);
      return semanticFloor;
    },
    get cursorKeys() {
      cursorKeys ??= searchAdapters().cursorKeys(env);
      return cursorKeys;
    },
    get tiers() {
      tiers ??= tierPoliciesFromEnv(env);
      return tiers;
    },
    clock: systemClock,
    metrics: awsTelemetry.metrics,
  };
}

let cached: Services | undefined;

/** For functions that read records by id. */
export function awsServices(): Services {
  cached ??= createAwsServices();
  return cached;
}

/** The tier keys' ids from TIER_API_KEY_IDS (validated: a bad value fails the cold start). */
export function tierKeyIdsFromEnv(env: NodeJS.ProcessEnv): Record<TierName, string> {
  const ids = JSON.parse(requireEnv(env, FUNCTION_ENV.tierApiKeyIds)) as Record<string, unknown>;
  for (const tier of TIER_NAMES) {
    if (typeof ids[tier] !== 'string' || ids[tier] === '') throw new Error(`${FUNCTION_ENV.tierApiKeyIds} has no key id for tier ${tier}`);
  }
  return ids as Record<TierName, string>;
}

let tierKeys: TierUsageKeys | undefined;

/** For the authorizer: each tier's API Gateway key, read once per cold start. */
export function awsTierKeys(): TierUsageKeys {
  tierKeys ??= new ApiGatewayTierKeys(traced(new APIGatewayClient({})), tierKeyIdsFromEnv(process.env));
  return tierKeys;
}
