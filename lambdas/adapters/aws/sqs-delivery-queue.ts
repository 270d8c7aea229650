import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DeliveryMessage, DeliveryQueue } from '../../ports/delivery-queue';

/** SQS's longest per-message delay. */
export const SQS_MAX_DELAY_SECONDS = 900;

/**
 * The webhook queue in AWS. A retry due later than SQS's 15-minute limit is sent with the
 * longest delay and re-queued by the sender until it is due (processDelivery). The dead-letter
 * queue gets a message either from the sender after the schedule's last attempt (deadLetter) or
 * from SQS's redrive when a message keeps failing to be processed at all.
 */
export class SqsDeliveryQueue implements DeliveryQueue {
  readonly maxDelaySeconds = SQS_MAX_DELAY_SECONDS;

  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
    private readonly deadLetterQueueUrl: string,
  ) {}

  async send(message: DeliveryMessage, delaySeconds: number): Promise<void> {
    // Whole seconds, rounded up: a message that arrives early is only re-queued, one that arrived
    // late would shorten the receiver's backoff.
    const delay = Math.min(SQS_MAX_DELAY_SECONDS, Math.max(0, Math.ceil(delaySeconds)));
    await this.sqs.send(new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: JSON.stringify(message), DelaySeconds: delay }));
  }

  async deadLetter(message: DeliveryMessage): Promise<void> {
    await this.sqs.send(new SendMessageCommand({ QueueUrl: this.deadLetterQueueUrl, MessageBody: JSON.stringify(message) }));
  }
}

/** The message an SQS record carries; null for a body that is not one (logged and dropped by the sender). */
export function deliveryMessageOf(body: string): DeliveryMessage | null {
  try {
    const parsed: unknown = JSON.parse(body);
    if (parsed && typeof parsed === 'object' && typeof (parsed as { delivery_id?: unknown }).delivery_id === 'string') {
      return { delivery_id: (parsed as { delivery_id: string }).delivery_id };
    }
  } catch {
    // not JSON
  }
  return null;
}
