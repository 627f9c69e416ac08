/**
 * Entry point of the call-log store: PostgreSQL when `databaseUrl` is set (`DATABASE_URL`),
 * else the embedded SQLite file under the data directory, run in a worker thread so its
 * synchronous driver never blocks the event loop. Migrations run before it is returned.
 */
import { createPostgresLogStore, type PostgresLogStoreOptions } from './postgres.ts';
import { createThreadedSqliteLogStore } from './sqlite-threaded.ts';
import type { LogStore } from './types.ts';
import { withDeferredMigration } from './deferred-migration.ts';

export interface LogStoreOptions {
  /** `GATEWAY_DATA_DIR`; the SQLite file is `${dataDir}/gateway.db`. */
  dataDir: string;
  /** `DATABASE_URL` (postgres://…); when set, logs and statistics live in PostgreSQL. */
  databaseUrl?: string;
  /** PostgreSQL schema for the tables (tests use a throwaway one). */
  pgSchema?: string;
  /** Errors outside any call: idle PostgreSQL connections, a crashed SQLite worker. */
  onError?: (error: Error) => void;
  /** PostgreSQL connect and migration timeouts, shorter in tests (defaults in postgres.ts). */
  pgTimeouts?: Pick<PostgresLogStoreOptions, 'connectTimeoutMs' | 'migrationQueryTimeoutMs'>;
}

/**
 * Opens and migrates the log store chosen by the options. A PostgreSQL server that does not
 * answer at start, refusing the connection or accepting it and then staying silent past the
 * connect or migration timeout, does not stop the gateway: the store migrates on first use once
 * it answers (see deferred-migration.ts). A local SQLite file that cannot be opened is a startup
 * error.
 */
export async function createLogStore(options: LogStoreOptions): Promise<LogStore> {
  const store = options.databaseUrl
    ? await createPostgresLogStore({ connectionString: options.databaseUrl, schema: options.pgSchema, onError: options.onError, ...options.pgTimeouts })
    : createThreadedSqliteLogStore({ dataDir: options.dataDir, onError: options.onError });
  try {
    await store.migrate();
  } catch (e) {
    if (options.databaseUrl && isUnreachable(e)) {
      options.onError?.(new Error(`log database unreachable at start, will retry: ${(e as Error).message}`));
      return withDeferredMigration(store, e);
    }
    await store.close().catch(() => {});
    throw e;
  }
  return store;
}

/** Connection-level failures (the server is down or unreachable), as opposed to a bad schema. */
function isUnreachable(error: unknown): boolean {
  const code = (error as { code?: string })?.code ?? '';
  return ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', '57P03'].includes(code) || /timeout|terminated|connect/i.test(String((error as Error)?.message));
}

export type * from './types.ts';
export { BUCKET_MS } from './types.ts';
export { createRequestId } from '../../kernel/request-id.ts';
export { createLogQueue } from './queue.ts';
export type { LogQueue, LogQueueOptions } from './queue.ts';
export { addDecimal, costOf, sumDecimals } from '../../kernel/decimal.ts';
