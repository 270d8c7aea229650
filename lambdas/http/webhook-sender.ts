import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSHandler, SQSRecord } from 'aws-lambda';
import { deliveryMessageOf } from '../adapters/aws/sqs-delivery-queue';
import { processDelivery, type DeliveryOptions, type DeliveryPorts } from '../core/use-cases/deliver-webhook';
import { logger } from './api-gateway';

/**
 * The webhook sender in AWS: each SQS message is one attempt of one delivery (processDelivery).
 * Messages are attempted in parallel; one that fails unexpectedly (DynamoDB or SQS unavailable)
 * is reported back alone (partial batch response), so SQS redelivers it after its visibility
 * timeout and, after the queue's receive limit, moves it to the dead-letter queue. A receiver that
 * fails is not an error here: the attempt is logged and the retry is queued by processDelivery.
 */
export function webhookSenderHandler(ports: () => DeliveryPorts, options: DeliveryOptions = { mode: 'aws' }): SQSHandler {
  const processor = new BatchProcessor(EventType.SQS);

  async function sendOne(record: SQSRecord): Promise<void> {
    const message = deliveryMessageOf(record.body);
    if (!message) {
      // Not ours to send (nothing in the delivery log names it); retrying cannot help.
      logger.error('dropped a webhook queue message that names no delivery', { messageId: record.messageId, bodyLength: record.body.length });
      return;
    }
    try {
      const outcome = await processDelivery(ports(), message, options);
      logger.info('webhook attempt', { deliveryId: message.delivery_id, outcome, receiveCount: record.attributes.ApproximateReceiveCount });
    } catch (error) {
      logger.error('webhook attempt failed unexpectedly; SQS will redeliver it', { deliveryId: message.delivery_id, error: error as Error });
      throw error;
    }
  }

  return async (event, context) => processPartialResponse(event, sendOne, processor, { context });
}
