import type { LegacyGatewayKeys } from '../../ports/gateway-keys';
import type { KeyStore } from '../../ports/key-store';

/** What the migration did (or, on a dry run, would do) to one key record. */
export interface GatewayKeyMigration {
  key_id: string;
  api_key_id: string;
  /** 'deleted', 'absent' (gone already: a resumed run), or 'planned' on a dry run. */
  gateway_key: 'deleted' | 'absent' | 'planned';
}

/**
 * Moves a stage off per-customer gateway keys: for each key record that names one, deletes the
 * gateway key, then clears the record's id and value. Deleting first makes a run that stops
 * half-way resumable (the record still names the key, whose deletion then answers 'absent'), and
 * a second run finds nothing to do. Requires the tier keys deployed first: the authorizer no
 * longer reads the record's gateway key.
 */
export async function migrateGatewayKeys(keys: KeyStore, gateway: LegacyGatewayKeys, options: { dryRun: boolean }): Promise<GatewayKeyMigration[]> {
  const done: GatewayKeyMigration[] = [];
  for (const record of await keys.list()) {
    const apiKeyId = record.api_key_id;
    if (!apiKeyId && !record.usage_key) continue;
    if (options.dryRun) {
      done.push({ key_id: record.key_id, api_key_id: apiKeyId ?? '', gateway_key: 'planned' });
      continue;
    }
    const outcome = apiKeyId ? await gateway.delete(apiKeyId) : 'absent';
    await keys.clearGatewayKey(record.key_id);
    done.push({ key_id: record.key_id, api_key_id: apiKeyId ?? '', gateway_key: outcome });
  }
  return done;
}
