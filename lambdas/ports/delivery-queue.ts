/** What goes through the queue: only the delivery's id (the delivery log holds the rest). */
export interface DeliveryMessage {
  delivery_id: string;
}

/**
 * The webhook queue (SQS with a dead-letter queue in AWS; an in-process queue locally). A
 * message may arrive more than once: the sender is idempotent on the delivery log.
 */
export interface DeliveryQueue {
  /** The longest delay one send can carry (SQS: 900 s); longer waits are covered by re-sending. */
  readonly maxDelaySeconds: number;
  send(message: DeliveryMessage, delaySeconds: number): Promise<void>;
  /** After the last attempt: keep the message for operators (the delivery log says why). */
  deadLetter(message: DeliveryMessage): Promise<void>;
}
