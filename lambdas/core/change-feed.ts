import { v5 as uuidv5 } from 'uuid';
import type { RecordByKind, ResourceKind } from './records';

/**
 * The change feed's one rule: a write whose content hash differs from the stored one is a change,
 * and a change is `created` when there was no record before, `updated` otherwise. Writes that
 * change nothing produce nothing, so consumers (the index, webhooks) only hear of real changes.
 */

export type ChangeEventType = `${ResourceKind}.${'created' | 'updated'}`;

export interface RecordChange<K extends ResourceKind = ResourceKind> {
  kind: K;
  id: string;
  /** The stored version before the write; null when the record did not exist. */
  before: { contentHash: string } | null;
  /** The record after the write with its hash; null when it was deleted. */
  after: { record: RecordByKind[K]; contentHash: string } | null;
}

export interface ChangeEvent {
  /** Stable for one transition, so a replayed stream batch yields the same id (receivers dedupe on it). */
  event_id: string;
  event: ChangeEventType;
  kind: ResourceKind;
  record_id: string;
  content_hash: string;
  occurred_at: string;
  /** The full public record as written. */
  data: RecordByKind[ResourceKind];
}

const EVENT_ID_NAMESPACE = '20cddbc0-caa7-4f3c-a82f-e7fa42416f6a';

export function changeEventOf(change: RecordChange, occurredAt: Date): ChangeEvent | null {
  const { after, before } = change;
  if (!after || (before && before.contentHash === after.contentHash)) return null;
  const event: ChangeEventType = `${change.kind}.${before ? 'updated' : 'created'}`;
  return {
    event_id: uuidv5(`${change.id}\u0000${event}\u0000${before?.contentHash ?? ''}\u0000${after.contentHash}`, EVENT_ID_NAMESPACE),
    event,
    kind: change.kind,
    record_id: change.id,
    content_hash: after.contentHash,
    occurred_at: occurredAt.toISOString(),
    data: after.record,
  };
}
