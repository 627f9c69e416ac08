/**
 * A log store whose migrations have not run yet because its database was unreachable at start:
 * every call first retries them (at most once per `retryMs`), so the gateway starts and serves
 * while PostgreSQL is down, the log queue holds and retries its records, and the store comes
 * into use by itself once the database answers.
 */
import type { LogStore } from './types.ts';

export function withDeferredMigration(store: LogStore, firstError: unknown, retryMs = 2_000): LogStore {
  let migrated = false;
  let lastError = firstError;
  let lastTry = Date.now();
  let trying: Promise<void> | undefined;

  async function ready(): Promise<void> {
    if (migrated) return;
    if (!trying && Date.now() - lastTry < retryMs) throw new Error(`the log database is not ready: ${String((lastError as Error)?.message ?? lastError)}`);
    trying ??= store
      .migrate()
      .then(() => {
        migrated = true;
      })
      .catch((error) => {
        lastError = error;
        throw error;
      })
      .finally(() => {
        lastTry = Date.now();
        trying = undefined;
      });
    return trying;
  }

  return {
    kind: store.kind,
    migrate: () => ready(),
    insertBatch: async (records) => (await ready(), store.insertBatch(records)),
    list: async (filter, page, pageSize) => (await ready(), store.list(filter, page, pageSize)),
    get: async (id) => (await ready(), store.get(id)),
    breakdown: async (filter, by, limit) => (await ready(), store.breakdown(filter, by, limit)),
    deleteOlderThan: async (ms) => (await ready(), store.deleteOlderThan(ms)),
    rollup: async (fromMs, toMs, filter, groupBy) => (await ready(), store.rollup(fromMs, toMs, filter, groupBy)),
    ping: async () => (await ready(), store.ping()),
    close: () => store.close(),
  };
}
