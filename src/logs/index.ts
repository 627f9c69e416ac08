/**
 * Entry point of the call-log store: PostgreSQL when `databaseUrl` is set (`DATABASE_URL`),
 * else the embedded SQLite file under the data directory, run in a worker thread so its
 * synchronous driver never blocks the event loop. Migrations run before it is returned.
 */
import { createPostgresLogStore } from './postgres.ts';
import { createThreadedSqliteLogStore } from './sqlite-threaded.ts';
import type { LogStore } from './types.ts';

export interface LogStoreOptions {
  /** `GATEWAY_DATA_DIR`; the SQLite file is `${dataDir}/gateway.db`. */
  dataDir: string;
  /** `DATABASE_URL` (postgres://…); when set, logs and statistics live in PostgreSQL. */
  databaseUrl?: string;
  /** PostgreSQL schema for the tables (tests use a throwaway one). */
  pgSchema?: string;
  /** Errors outside any call: idle PostgreSQL connections, a crashed SQLite worker. */
  onError?: (error: Error) => void;
}

/** Opens and migrates the log store chosen by the options. */
export async function createLogStore(options: LogStoreOptions): Promise<LogStore> {
  const store = options.databaseUrl
    ? createPostgresLogStore({ connectionString: options.databaseUrl, schema: options.pgSchema, onError: options.onError })
    : createThreadedSqliteLogStore({ dataDir: options.dataDir, onError: options.onError });
  try {
    await store.migrate();
  } catch (e) {
    await store.close().catch(() => {});
    throw e;
  }
  return store;
}

export type * from './types.ts';
export { BUCKET_MS } from './types.ts';
export { createLogId } from './id.ts';
export { createLogQueue } from './queue.ts';
export type { LogQueue, LogQueueOptions } from './queue.ts';
export { addDecimal, costOf, sumDecimals } from './decimal.ts';
