import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { DynamoDBRecord, DynamoDBStreamHandler } from 'aws-lambda';
import { changeEventOfStreamRecord } from '../adapters/aws/dynamo-stream-changes';
import { type ChangeFanOutPorts, fanOutChangeEvents } from '../core/use-cases/fan-out-events';
import type { WebhookSubscription } from '../ports/webhook-store';
import { logger } from './api-gateway';

/**
 * The change events' way to webhooks in AWS: the records table's stream, filtered to outbox
 * items, drives this function. Each new event becomes one delivery per subscription to its kind
 * (logged, then queued on SQS) and leaves the outbox. The subscriptions are read once per batch.
 * A record that fails is reported back alone (partial batch response); fanOutEvents is
 * idempotent, so a retried record makes no second delivery.
 */
export function changeFanOutHandler(ports: () => ChangeFanOutPorts): DynamoDBStreamHandler {
  const processor = new BatchProcessor(EventType.DynamoDBStreams);

  return async (event, context) => {
    let subscriptions: Promise<WebhookSubscription[]> | undefined;
    const batchPorts = () => {
      const base = ports();
      subscriptions ??= base.webhooks.list();
      return { ...base, webhooks: { list: () => subscriptions! } };
    };

    async function fanOutOne(streamRecord: DynamoDBRecord): Promise<void> {
      const change = changeEventOfStreamRecord(streamRecord);
      if (!change) return;
      try {
        const made = await fanOutChangeEvents(batchPorts(), [change]);
        logger.debug('fanned out a change event', { eventId: change.event_id, event: change.event, deliveries: made });
      } catch (error) {
        logger.error('could not fan out a change event', { eventId: change.event_id, event: change.event, error: error as Error });
        throw error;
      }
    }

    return processPartialResponse(event, fanOutOne, processor, { context, processInParallel: false });
  };
}
