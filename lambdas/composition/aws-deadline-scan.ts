import { DynamoDeadlineLedger } from '../adapters/aws/dynamo-deadline-ledger';
import type { DeadlineScanPorts } from '../core/use-cases/scan-deadlines';
import { systemClock } from '../ports/clock';
import { openSearchIndexFor } from './aws-search';
import { awsWebhookAdapters } from './aws-webhooks';

let ports: DeadlineScanPorts | undefined;

/** The deadline scanner's ports: the search index it reads open records from, markers in the table, the webhook queue. */
export function awsDeadlineScanPorts(): DeadlineScanPorts {
  const { dynamo, tableName, webhooks, log, queue } = awsWebhookAdapters();
  ports ??= { webhooks, log, queue, clock: systemClock, index: openSearchIndexFor(process.env), ledger: new DynamoDeadlineLedger(dynamo, tableName) };
  return ports;
}
