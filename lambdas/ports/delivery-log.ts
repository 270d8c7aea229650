import type { WebhookEvent } from '../core/webhooks/events';

export type DeliveryStatus = 'pending' | 'retrying' | 'delivered' | 'failed' | 'gone' | 'skipped';

/**
 * One event's delivery to one subscription, across its attempts. It keeps the body sent (the
 * same bytes on every attempt), so a failed delivery can be replayed without the queue.
 */
export interface Delivery {
  delivery_id: string;
  subscription_id: string;
  event_id: string;
  event: WebhookEvent;
  body: string;
  status: DeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  last_latency_ms: number | null;
  /** Start of the receiver's last answer (capped). */
  last_response: string | null;
  next_attempt_at: string | null;
  created_at: string;
  updated_at: string;
  delivered_at: string | null;
}

/** The delivery log (the records table in AWS; the same adapter against dynalite locally). */
export interface DeliveryLog {
  /** Stores a new delivery; false (and no change) when one with this id exists, so a fan-out can be repeated. */
  create(delivery: Delivery): Promise<boolean>;
  get(deliveryId: string): Promise<Delivery | null>;
  /** Replaces the stored delivery. */
  save(delivery: Delivery): Promise<void>;
  /** A subscription's deliveries, newest first. */
  list(subscriptionId: string, limit: number): Promise<Delivery[]>;
}
