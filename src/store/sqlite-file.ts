/**
 * A SQLite database file of the data directory as the gateway keeps them all: private (0600, with
 * its -wal and -shm), WAL with synchronous=NORMAL (no fsync per commit; a crash loses at most the
 * last commits, never the file), and a 5 s wait on another writer's lock (cluster workers share
 * files). `:memory:` (tests) skips the files.
 */
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { makePrivateDirSync, makePrivateFileSync } from '../kernel/private-files.ts';

export function openSqliteFile(file: string): Database.Database {
  if (file !== ':memory:') {
    makePrivateDirSync(dirname(file));
    makePrivateFileSync(file, [`${file}-wal`, `${file}-shm`]);
  }
  const db = new Database(file);
  // The wait first: switching a new file to WAL takes an exclusive lock, which cluster workers
  // starting together contend for (without the wait, one of them failed at once, SQLITE_BUSY).
  db.pragma('busy_timeout = 5000');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  return db;
}
