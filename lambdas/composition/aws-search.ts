import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { Client } from '@opensearch-project/opensearch';
import { AwsSigv4Signer } from '@opensearch-project/opensearch/aws-v3';
import { DynamoChangeOutbox } from '../adapters/aws/dynamo-change-outbox';
import { OpenSearchIndex } from '../adapters/aws/opensearch-index';
import type { IndexerPorts } from '../core/use-cases/index-record-changes';
import { systemClock } from '../ports/clock';
import type { SearchIndex } from '../ports/search-index';
import type { Services } from '../ports/services';
import { createAwsServices, requireEnv } from './aws';

/** The search domain behind SEARCH_DOMAIN_ENDPOINT, with requests signed (SigV4) by the function's role. */
export function openSearchIndex(env: NodeJS.ProcessEnv): SearchIndex {
  const endpoint = requireEnv(env, 'SEARCH_DOMAIN_ENDPOINT');
  const client = new Client({
    ...AwsSigv4Signer({ region: requireEnv(env, 'AWS_REGION'), service: 'es', getCredentials: defaultProvider() }),
    node: endpoint,
  });
  return new OpenSearchIndex(client, endpoint);
}

let cachedServices: Services | undefined;

/** For functions that list and search. */
export function awsSearchServices(): Services {
  cachedServices ??= createAwsServices(process.env, openSearchIndex);
  return cachedServices;
}

/** The indexer's ports: the search index it writes and the outbox in the records table. */
export function createAwsIndexerPorts(env: NodeJS.ProcessEnv = process.env): IndexerPorts {
  return {
    index: openSearchIndex(env),
    outbox: new DynamoChangeOutbox(new DynamoDBClient({}), requireEnv(env, 'RECORDS_TABLE_NAME')),
    clock: systemClock,
  };
}

let cachedIndexerPorts: IndexerPorts | undefined;

export function awsIndexerPorts(): IndexerPorts {
  cachedIndexerPorts ??= createAwsIndexerPorts();
  return cachedIndexerPorts;
}
