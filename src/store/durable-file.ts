/**
 * Where the embedded memory store keeps its durable values (durable-keys.ts): a small SQLite
 * table at `<GATEWAY_DATA_DIR>/state.db`. Each change is written when it is made, so a value a
 * request changed is on disk before that request is answered. better-sqlite3 is synchronous: fine
 * here, since these values change on management calls and sign-ins (tens of microseconds each,
 * WAL without an fsync per commit), never per inference request.
 */
import { openSqliteFile } from './sqlite-file.ts';

export interface DurableEntry {
  key: string;
  value: string;
  /** Epoch ms; 0 = no expiry. */
  expiresAt: number;
}

export interface DurableFile {
  /** The entries not expired at `now`; expired ones are deleted. */
  load(now: number): DurableEntry[];
  put(entry: DurableEntry): void;
  remove(key: string): void;
  close(): void;
}

export function openDurableFile(file: string): DurableFile {
  const db = openSqliteFile(file);
  db.exec('CREATE TABLE IF NOT EXISTS state (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires_at INTEGER NOT NULL) WITHOUT ROWID');
  const upsert = db.prepare(
    'INSERT INTO state (key, value, expires_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at',
  );
  const remove = db.prepare('DELETE FROM state WHERE key = ?');
  return {
    load(now) {
      db.prepare('DELETE FROM state WHERE expires_at > 0 AND expires_at <= ?').run(now);
      return db.prepare('SELECT key, value, expires_at AS expiresAt FROM state').all() as DurableEntry[];
    },
    put({ key, value, expiresAt }) {
      upsert.run(key, value, expiresAt);
    },
    remove(key) {
      remove.run(key);
    },
    close() {
      if (db.open) db.close();
    },
  };
}
