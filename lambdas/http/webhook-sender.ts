import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSHandler, SQSRecord } from 'aws-lambda';
import { deliveryMessageOf } from '../adapters/aws/sqs-delivery-queue';
import { METRIC_NAMES } from '../core/metric-names';
import { type DeliveryOptions, type DeliveryOutcome, type DeliveryPorts, processDelivery } from '../core/use-cases/deliver-webhook';
import type { Delivery, DeliveryLog } from '../ports/delivery-log';
import { type MetricName, type MetricsRecorder, noMetrics } from '../ports/metrics';
import { logger } from './api-gateway';

/** The metric of an attempt's outcome; 410 Gone ends the delivery unsent, so it counts as failed. */
const OUTCOME_METRICS: Partial<Record<DeliveryOutcome, MetricName>> = {
  delivered: METRIC_NAMES.webhookDelivered,
  failed: METRIC_NAMES.webhookFailed,
  gone: METRIC_NAMES.webhookFailed,
  retrying: METRIC_NAMES.webhookRetried,
};

/** The log, noting the status (and subscription) each attempt saves: a duplicate SQS message returns the stored status without one. */
function notingLog(log: DeliveryLog, saved: (delivery: Delivery) => void): DeliveryLog {
  return {
    create: (delivery) => log.create(delivery),
    get: (deliveryId) => log.get(deliveryId),
    save: (delivery) => {
      saved(delivery);
      return log.save(delivery);
    },
    list: (subscriptionId, limit) => log.list(subscriptionId, limit),
  };
}

/**
 * The webhook sender in AWS: each SQS message is one attempt of one delivery (processDelivery).
 * Messages are attempted in parallel; one that fails unexpectedly (DynamoDB or SQS unavailable)
 * is reported back alone (partial batch response), so SQS redelivers it after its visibility
 * timeout and, after the queue's receive limit, moves it to the dead-letter queue. A receiver that
 * fails is not an error here: the attempt is logged and the retry is queued by processDelivery.
 * Each attempt counts as WebhookDelivered, WebhookRetried or WebhookFailed (a redelivered message
 * that makes no attempt counts nothing).
 */
export function webhookSenderHandler(ports: () => DeliveryPorts, options: DeliveryOptions = { mode: 'aws' }, metrics: MetricsRecorder = noMetrics): SQSHandler {
  const processor = new BatchProcessor(EventType.SQS);

  async function sendOne(record: SQSRecord): Promise<void> {
    const message = deliveryMessageOf(record.body);
    if (!message) {
      // Not ours to send (nothing in the delivery log names it); retrying cannot help.
      logger.error('dropped a webhook queue message that names no delivery', { messageId: record.messageId, bodyLength: record.body.length });
      return;
    }
    try {
      const base = ports();
      let saved: Delivery | undefined;
      const outcome = await processDelivery(
        {
          ...base,
          log: notingLog(base.log, (delivery) => {
            saved = delivery;
          }),
        },
        message,
        options,
      );
      const metric = OUTCOME_METRICS[outcome];
      if (metric && saved?.status === outcome) metrics.record(metric, 'Count', 1);
      logger.info('webhook attempt', {
        deliveryId: message.delivery_id,
        subscriptionId: saved?.subscription_id,
        outcome,
        statusCode: saved?.last_status_code ?? null,
        receiveCount: record.attributes.ApproximateReceiveCount,
      });
    } catch (error) {
      logger.error('webhook attempt failed unexpectedly; SQS will redeliver it', { deliveryId: message.delivery_id, error: error as Error });
      throw error;
    }
  }

  return async (event, context) => processPartialResponse(event, sendOne, processor, { context });
}
