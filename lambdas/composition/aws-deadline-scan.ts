import { DynamoDeadlineLedger } from '../adapters/aws/dynamo-deadline-ledger';
import type { DeadlineScanPorts } from '../core/use-cases/scan-deadlines';
import { systemClock } from '../ports/clock';
import type { SearchIndex } from '../ports/search-index';
import { openSearchIndexFor } from './aws-search';
import { awsWebhookAdapters, type AwsWebhookAdapters } from './aws-webhooks';

/** The deadline scanner's ports: the search index it reads open records from, markers in the table, the webhook queue. */
export function createAwsDeadlineScanPorts(adapters: AwsWebhookAdapters, index: SearchIndex): DeadlineScanPorts {
  const { dynamo, tableName, webhooks, log, queue } = adapters;
  return { webhooks, log, queue, clock: systemClock, index, ledger: new DynamoDeadlineLedger(dynamo, tableName) };
}

let ports: DeadlineScanPorts | undefined;

export function awsDeadlineScanPorts(): DeadlineScanPorts {
  ports ??= createAwsDeadlineScanPorts(awsWebhookAdapters(), openSearchIndexFor(process.env));
  return ports;
}
