import type { WebhookEvent } from '../core/webhooks/events';

/** A developer key's webhook subscription, as stored. */
export interface WebhookSubscription {
  subscription_id: string;
  key_id: string;
  url: string;
  events: WebhookEvent[];
  /** `*.deadline_approaching` fires this many days (or fewer) before a deadline. */
  days_before: number;
  /**
   * A saved search: list parameters (a normalised query string, core/webhooks/saved-search.ts);
   * only events whose record it matches are sent. Null or absent: every event subscribed to.
   */
  filter?: string | null;
  state: 'active' | 'disabled';
  /** Why it was disabled: by an operator, or by the receiver answering 410 Gone. */
  disabled_reason: string | null;
  /**
   * The signing secret. Stored because every delivery is signed with it (the table is encrypted
   * at rest); shown to the customer once, never listed or logged.
   */
  secret: string;
  /** The secret before the last rotation, still signing (beside the new one) until previous_secret_valid_until. */
  previous_secret: string | null;
  previous_secret_valid_until: string | null;
  /**
   * When the receiver's current run of failed attempts began (the first failure after a success);
   * null or absent while it answers. After RECEIVER_FAILURE_LIMIT_MS of failing the subscription is
   * disabled.
   */
  failing_since?: string | null;
  created_at: string;
  updated_at: string;
}

export class WebhookConflict extends Error {}

/** Subscriptions (the records table in AWS; the same adapter against dynalite locally). */
export interface WebhookStore {
  /** Stores a new subscription; a WebhookConflict when the key already has one for the same URL. */
  create(subscription: WebhookSubscription): Promise<void>;
  get(subscriptionId: string): Promise<WebhookSubscription | null>;
  /** Every subscription, or one key's, oldest first. */
  list(keyId?: string): Promise<WebhookSubscription[]>;
  /** Applies the changes to an existing subscription; a WebhookConflict when there is none. */
  update(
    subscriptionId: string,
    changes: Partial<Omit<WebhookSubscription, 'subscription_id' | 'key_id' | 'url' | 'created_at'>>,
  ): Promise<WebhookSubscription>;
}
