import Database from 'better-sqlite3';
import type { EmbeddingCache } from '../../ports/embedder';
import { bytesOfVector, vectorOfBytes } from '../vector-bytes';

/**
 * Embeddings in SQLite for local mode: a restart re-indexes without re-embedding. Vectors are
 * stored as their Float32 bytes (host order, little-endian on every platform this runs on).
 */
export class SqliteEmbeddingCache implements EmbeddingCache {
  private readonly db: Database.Database;
  private readonly select: Database.Statement<[string], { vector: Buffer }>;
  private readonly upsertAll: (entries: ReadonlyMap<string, Float32Array>) => void;

  /** A file path, or ':memory:'. */
  constructor(filename: string) {
    this.db = new Database(filename);
    this.db.pragma('journal_mode = WAL');
    this.db.exec('CREATE TABLE IF NOT EXISTS embeddings (key TEXT PRIMARY KEY, vector BLOB NOT NULL)');
    this.select = this.db.prepare('SELECT vector FROM embeddings WHERE key = ?');
    const upsert = this.db.prepare('INSERT INTO embeddings (key, vector) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET vector = excluded.vector');
    // One transaction per put: a thousand single-row commits would each wait for the disk.
    this.upsertAll = this.db.transaction((entries: ReadonlyMap<string, Float32Array>) => {
      for (const [key, vector] of entries) upsert.run(key, bytesOfVector(vector));
    });
  }

  async get(keys: readonly string[]): Promise<Map<string, Float32Array>> {
    const found = new Map<string, Float32Array>();
    for (const key of keys) {
      const row = this.select.get(key);
      if (row) found.set(key, vectorOfBytes(row.vector));
    }
    return found;
  }

  async put(entries: ReadonlyMap<string, Float32Array>): Promise<void> {
    this.upsertAll(entries);
  }

  close(): void {
    this.db.close();
  }
}
