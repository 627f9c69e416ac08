/**
 * The gateway's SQLite log store: a main-thread proxy for the synchronous better-sqlite3 store
 * (sqlite.ts), which runs in a worker thread (sqlite-worker.ts). better-sqlite3 blocks the
 * thread it runs on for the whole of a batch transaction with its rollup upserts; in a worker
 * that is no longer the event loop serving requests (the hot path rule: no sync I/O).
 *
 * Each call posts `{id, method, args}` and resolves from the reply with the same id; failures
 * come back as errors with the worker's message. A worker that dies rejects every pending call
 * and is reported once through `onError`; calls then reject (the log queue keeps its records and
 * retries with backoff; the `database` health probe turns red through `ping`) until
 * `restartAfterMs` has passed, when the next call starts a fresh worker (migrations first).
 */
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { fromWireError, type StoreMethod, type StoreReply } from './sqlite-protocol.ts';
import type { SqliteLogStoreOptions } from './sqlite.ts';
import type { LogStore } from './types.ts';

export interface ThreadedSqliteLogStoreOptions extends SqliteLogStoreOptions {
  /** Told once when the worker dies unexpectedly (default: console.error). */
  onError?: (error: Error) => void;
  /** Worker entry module (default sqlite-worker.ts); tests substitute one that crashes. */
  workerEntry?: URL;
  /** Wait after a crash before the next call starts a new worker (default 5 s: no crash loop). */
  restartAfterMs?: number;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

// Run from the sources (tsx, vitest) the worker is the .ts beside this file; run from the
// bundle (`npm start`, scripts/build.ts) it is dist/sqlite-worker.mjs beside dist/main.mjs.
const ENTRY = new URL(import.meta.url.endsWith('.ts') ? './sqlite-worker.ts' : './sqlite-worker.mjs', import.meta.url);

/** Starts the store's worker; call `migrate()` (as createLogStore does) before use. */
export function createThreadedSqliteLogStore(options: ThreadedSqliteLogStoreOptions): LogStore {
  const entry = options.workerEntry ?? ENTRY;
  const report = options.onError ?? ((error: Error) => console.error(error));
  const restartAfterMs = options.restartAfterMs ?? 5_000;
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let down: { error: Error; at: number } | undefined;
  let restarting: Promise<void> | undefined;
  let closing: Promise<void> | undefined;
  let worker = spawn();

  function spawn(): Worker {
    const started = startWorker(entry, { dataDir: options.dataDir, file: options.file });
    started.unref();
    started.on('message', (reply: StoreReply) => {
      const call = pending.get(reply.id);
      if (!call) return;
      settled(reply.id);
      if (reply.ok) call.resolve(reply.value);
      else call.reject(fromWireError(reply.error));
    });
    started.on('messageerror', (error) => report(new Error(`SQLite log worker sent an unreadable reply: ${error.message}`)));
    started.on('error', (error) => fail(started, new Error(`SQLite log worker crashed: ${error.message}`)));
    started.on('exit', (code) => fail(started, new Error(`SQLite log worker exited (code ${code})`)));
    return started;
  }

  function fail(which: Worker, error: Error): void {
    if (which !== worker || down) return;
    down = { error, at: Date.now() };
    for (const call of pending.values()) call.reject(error);
    pending.clear();
    if (!closing) report(error);
  }

  function settled(id: number): void {
    pending.delete(id);
    if (pending.size === 0) worker.unref();
  }

  /** A fresh worker after a crash, once the restart delay has passed. */
  function restart(): Promise<void> {
    restarting ??= (async () => {
      worker = spawn();
      down = undefined;
      await post('migrate', []);
    })().finally(() => (restarting = undefined));
    return restarting;
  }

  function post<T>(method: StoreMethod, args: unknown[]): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const id = nextId++;
      try {
        worker.postMessage({ id, method, args });
      } catch (error) {
        reject(new Error(`cannot pass ${method} to the SQLite log worker: ${(error as Error).message}`));
        return;
      }
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      if (pending.size === 1) worker.ref();
    });
  }

  async function call<T>(method: StoreMethod, args: unknown[] = []): Promise<T> {
    if (closing && method !== 'close') throw new Error('the SQLite log store is closed');
    if (down && !closing && Date.now() - down.at >= restartAfterMs) await restart();
    if (restarting && method !== 'migrate') await restarting;
    if (down) throw new Error(`the SQLite log store is unavailable: ${down.error.message}`);
    return post<T>(method, args);
  }

  return {
    kind: 'sqlite',
    migrate: () => call('migrate'),
    insertBatch: (records) => (records.length === 0 ? Promise.resolve() : call('insertBatch', [records])),
    list: (filter, page, pageSize) => call('list', [filter, page, pageSize]),
    get: (id) => call('get', [id]),
    breakdown: (filter, by, limit) => call('breakdown', [filter, by, limit]),
    deleteOlderThan: (ms) => call('deleteOlderThan', [ms]),
    rollup: (fromMs, toMs, filter, groupBy) => call('rollup', [fromMs, toMs, filter, groupBy]),

    async ping() {
      // The whole round trip, not just the query: a stuck or dead worker must show here.
      const t0 = performance.now();
      await call('ping');
      return performance.now() - t0;
    },

    close() {
      closing ??= (async () => {
        try {
          if (!down) await call('close');
        } finally {
          await worker.terminate();
        }
      })();
      return closing;
    },
  };
}

/**
 * The worker's young generation: a batch's records die in it, and V8's default let it grow to
 * ~16 MiB resident under load; at 4 MiB the gateway sat ~10 MiB lower after 20 s at 50
 * connections, at the same CPU per row (bench/README.md, issue 37).
 */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 4 };

/**
 * Node 20 applies neither `--import tsx` in `execArgv` nor the main thread's module hooks to a
 * worker's entry module (nodejs/node#47747), and under vitest tsx is not loaded at all. So a
 * TypeScript entry is loaded by a small bootstrap through tsx's scoped `tsImport`, which works
 * under `node --import tsx`, `tsx` and vitest alike; a compiled `.js` entry is started directly.
 */
function startWorker(entryUrl: URL, workerData: SqliteLogStoreOptions): Worker {
  if (!entryUrl.pathname.endsWith('.ts')) return new Worker(entryUrl, { workerData, resourceLimits: WORKER_LIMITS });
  const tsx = import.meta.resolve('tsx/esm/api');
  const entry = JSON.stringify(entryUrl.href);
  const code = `import(${JSON.stringify(tsx)}).then((tsx) => tsx.tsImport(${entry}, ${entry}));`;
  return new Worker(code, { eval: true, workerData, resourceLimits: WORKER_LIMITS });
}
