import type { RecordStore } from '../../ports/record-store';
import { invalidParameters, notFound } from '../errors';
import type { RecordByKind, ResourceKind } from '../records';

// Any RFC 4122-shaped id, so records imported with v5 (name-based) ids stay reachable.
const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function parseRecordId(raw: string | undefined): string {
  if (!raw || !UUID_SHAPE.test(raw)) {
    throw invalidParameters([{ field: 'id', issue: 'must be a UUID such as 3f2b8c1e-6a4d-4c8e-9b1a-2d5e7f9a0b3c' }]);
  }
  return raw.toLowerCase();
}

const NOUNS: Record<ResourceKind, string> = { grant: 'grant', contract: 'contract', funder: 'funder' };

export async function getRecord<K extends ResourceKind>(store: RecordStore, kind: K, rawId: string | undefined): Promise<RecordByKind[K]> {
  const id = parseRecordId(rawId);
  const record = await store.get(kind, id);
  if (!record) throw notFound(NOUNS[kind], id);
  return record;
}
