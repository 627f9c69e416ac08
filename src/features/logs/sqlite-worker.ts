/**
 * Worker-thread entry of the threaded SQLite log store (see sqlite-threaded.ts). It owns the
 * synchronous better-sqlite3 store, so batch transactions, rollup upserts and statistics
 * queries run here and never on the gateway's event loop. Each `StoreRequest` is answered with
 * one `StoreReply` carrying the same id.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { STORE_METHODS, toWireError, type StoreReply, type StoreRequest } from './sqlite-protocol.ts';
import { createSqliteLogStore, type SqliteLogStoreOptions } from './sqlite.ts';
import type { LogStore } from './types.ts';

const port = parentPort;
if (!port) throw new Error('sqlite-worker.ts runs only as a worker thread');
const methods = new Set<string>(STORE_METHODS);

// Opening may fail (unwritable directory, corrupt file): keep the error and answer every call
// with it, so `migrate()` rejects and createLogStore reports why instead of a bare exit.
let store: LogStore | undefined;
let openError: Error | undefined;
const options = workerData as SqliteLogStoreOptions;
try {
  store = createSqliteLogStore(options);
} catch (error) {
  const where = options.file ?? options.dataDir ?? './data';
  openError = new Error(`cannot open the SQLite log store (${where}): ${(error as Error).message}`);
  (openError as Error & { code?: unknown }).code = (error as { code?: unknown }).code;
}

port.on('message', async (request: StoreRequest) => {
  const { id, method, args } = request;
  try {
    if (!store) throw openError;
    if (!methods.has(method)) throw new Error(`unknown log store method: ${String(method)}`);
    const call = store[method] as (...a: unknown[]) => Promise<unknown>;
    const value = await call.apply(store, args);
    port.postMessage({ id, ok: true, value } satisfies StoreReply);
  } catch (error) {
    port.postMessage({ id, ok: false, error: toWireError(error) } satisfies StoreReply);
  }
});
