import type { ChangeFanOutPorts } from '../core/use-cases/fan-out-events';
import { awsSearchServices } from './aws-search';
import { awsWebhookAdapters, createAwsFanOutPorts } from './aws-webhooks';

/**
 * The fan-out function's ports: the webhook adapters, and the list's search services (OpenSearch
 * and Bedrock, built on first use) to match saved searches. Apart from aws-webhooks.ts so the
 * sender, which never searches, bundles neither client.
 */
let fanOutPorts: ChangeFanOutPorts | undefined;

export function awsFanOutPorts(): ChangeFanOutPorts {
  fanOutPorts ??= { ...createAwsFanOutPorts(awsWebhookAdapters()), savedSearch: awsSearchServices() };
  return fanOutPorts;
}
