import { DynamoDeadlineLedger } from '../adapters/aws/dynamo-deadline-ledger';
import type { SearchPorts } from '../core/use-cases/list-records';
import type { DeadlineScanPorts } from '../core/use-cases/scan-deadlines';
import { systemClock } from '../ports/clock';
import type { SearchIndex } from '../ports/search-index';
import { awsSearchServices, openSearchIndexFor } from './aws-search';
import { type AwsWebhookAdapters, awsWebhookAdapters } from './aws-webhooks';

/** The deadline scanner's ports: the search index it reads open records from, markers in the table, the webhook queue. */
export function createAwsDeadlineScanPorts(adapters: AwsWebhookAdapters, index: SearchIndex, savedSearch?: SearchPorts): DeadlineScanPorts {
  const { dynamo, tableName, webhooks, log, queue } = adapters;
  return { webhooks, log, queue, clock: systemClock, index, ledger: new DynamoDeadlineLedger(dynamo, tableName), savedSearch };
}

let ports: DeadlineScanPorts | undefined;

export function awsDeadlineScanPorts(): DeadlineScanPorts {
  // Saved searches are matched through the list's services; the scan's own queries need no vector.
  ports ??= createAwsDeadlineScanPorts(awsWebhookAdapters(), openSearchIndexFor(process.env), awsSearchServices());
  return ports;
}
