import type { ChangeEvent } from '../core/change-feed';

/**
 * Change events waiting for delivery. The indexer appends; the webhooks sender (a later issue)
 * consumes. Appending an event id that is already there overwrites it, so a retried stream batch
 * does not duplicate events.
 */
export interface ChangeOutbox {
  append(events: readonly ChangeEvent[]): Promise<void>;
  /** Every pending event, page by page, in no particular order. */
  scan(): AsyncIterable<ChangeEvent[]>;
  /** Drops events whose deliveries are queued (idempotent). */
  remove(eventIds: readonly string[]): Promise<void>;
}
