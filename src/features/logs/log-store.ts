/**
 * Entry point of the call-log store: PostgreSQL when `databaseUrl` is set (`DATABASE_URL`),
 * else the embedded SQLite file under the data directory, run in a worker thread so its
 * synchronous driver never blocks the event loop. Migrations run before it is returned.
 */
import { createPostgresLogStore, type PostgresLogStoreOptions } from './postgres.ts';
import { createThreadedSqliteLogStore } from './sqlite-threaded.ts';
import type { LogStore } from './types.ts';
import { withDeferredMigration } from './deferred-migration.ts';
import { GatewayError } from '../../kernel/errors.ts';

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
  pgTimeouts?: Pick<PostgresLogStoreOptions, 'connectTimeoutMs' | 'queryTimeoutMs'>;
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
      return withUnavailableReads(withDeferredMigration(store, e));
    }
    await store.close().catch(() => {});
    throw e;
  }
  return options.databaseUrl ? withUnavailableReads(store) : store;
}

/**
 * Reads of a database that is down, not yet migrated or too slow answer 503
 * `log_store_unavailable` with Retry-After, not a 500: the client may retry, and nothing is lost
 * (the queue holds the writes).
 */
function withUnavailableReads(store: LogStore): LogStore {
  const unavailable = (error: unknown): never => {
    if (GatewayError.is(error) || !isUnreachable(error)) throw error;
    throw new GatewayError(503, 'server_error', 'The call log database is unavailable right now; try again shortly.', {
      code: 'log_store_unavailable', cause: error, headers: { 'retry-after': '5' },
    });
  };
  return {
    ...store,
    list: (filter, page, pageSize) => store.list(filter, page, pageSize).catch(unavailable),
    get: (id) => store.get(id).catch(unavailable),
    rollup: (fromMs, toMs, filter, groupBy) => store.rollup(fromMs, toMs, filter, groupBy).catch(unavailable),
  };
}

/** Connection-level failures (the server is down or unreachable), as opposed to a bad schema. */
function isUnreachable(error: unknown): boolean {
  const code = (error as { code?: string })?.code ?? '';
  return ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', '57P01', '57P03'].includes(code) || /timeout|terminated|connect|not ready/i.test(String((error as Error)?.message));
}

export type * from './types.ts';
export { BUCKET_MS } from './types.ts';
export { createRequestId } from '../../kernel/request-id.ts';
export { createLogQueue } from './queue.ts';
export type { LogQueue, LogQueueOptions } from './queue.ts';
export { addDecimal, costOf, sumDecimals } from '../../kernel/decimal.ts';
