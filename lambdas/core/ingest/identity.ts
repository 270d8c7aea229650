import { createHash } from 'node:crypto';
import { v5 as uuidv5 } from 'uuid';
import type { ResourceKind } from '../records';

/**
 * Deterministic identity, so re-importing the same data changes nothing: a record's id is a UUID v5
 * of its origin system and that system's own id, and its content hash covers every public field.
 */

/** Our UUID v5 namespace; changing it would give every imported record a new id. */
const RECORD_ID_NAMESPACE = '07335a92-a81a-4b16-a60d-ff9e67fbb87f';

/** The id of an imported record: the same opportunity from two feeds of one source gets the same id. */
export function recordIdOf(kind: ResourceKind, source: string, sourceId: string): string {
  return uuidv5(`${kind}\u0000${source}\u0000${sourceId}`, RECORD_ID_NAMESPACE);
}

/** The id of a funder created for an agency a record names but no funder file described. */
export function agencyFunderIdOf(agencyKey: string): string {
  return uuidv5(`agency\u0000${agencyKey}`, RECORD_ID_NAMESPACE);
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** SHA-256 over the record's public fields in a canonical order: equal records, equal hashes. */
export function contentHashOf(record: object): string {
  return createHash('sha256').update(canonicalJson(record)).digest('hex');
}
