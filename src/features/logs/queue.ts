/**
 * The bounded in-memory queue between the request path and the log store. `enqueue` never
 * blocks and never throws; records are written in batches, by size or after `flushIntervalMs`
 * (after 10 ms when only a few are queued: a low rate).
 *
 * Overload policy (the rows are the billing ledger, so they matter more than bodies):
 *  1. From `stripBodiesAt` queued records on (default half of `max`), a new record is queued
 *     without its `request`/`response` bodies: the billing row stays, the memory goes.
 *  2. Only at `max` is a new record refused: counted in `dropped`, passed to `onDrop`, logged.
 *     Queued records are never evicted for newer ones: what was accepted gets written.
 *
 * Failures: a failed batch stays at the head of the queue and is retried with exponential
 * backoff. When the batch fails twice while the store still answers `ping()`, the batch itself
 * is the problem (a record the database refuses), so its records are written one by one; the
 * refused ones (counted in `refused`, logged) go where rows go when the store is down: to `spill`,
 * retried at the next start. A served call never loses its row silently. An outage (ping fails
 * too) just keeps waiting.
 *
 * Close (shutdown): the queue keeps retrying, with backoff, until `closeTimeoutMs` has passed,
 * each attempt bounded by that deadline too (a server that never answers cannot hold the
 * shutdown). What is still unwritten then goes to `spill` (a file replayed at the next start);
 * a write still in flight may land as well, which is harmless: the stores ignore an id they hold.
 * A dropped record is logged with its billing fields, so the bill survives in the log collector.
 */
import { billingTrace } from './billing.ts';
import type { LogRecord, LogStore } from './types.ts';

/** How long `close()` retries a failing store by default (see `GATEWAY_FLUSH_TIMEOUT_MS`). */
export const DEFAULT_CLOSE_TIMEOUT_MS = 15_000;
/** When a partial batch is first looked at; written then if it is small (see `schedule`). */
const QUIET_FLUSH_MS = 10;
/** Longest pause between two attempts at close: a store that comes back is used within it. */
const CLOSE_RETRY_MAX_MS = 2_000;

export type DropReason = 'full' | 'rejected' | 'closed';

export interface LogQueueOptions {
  /** Records per store write. */
  batchSize: number;
  /** Longest wait before a partial batch is written. */
  flushIntervalMs: number;
  /** Most records held in memory. */
  max: number;
  /** Queue depth from which new records lose their bodies (default `max / 2`). */
  stripBodiesAt?: number;
  /** Called for every record that will never be written. */
  onDrop?: (record: LogRecord, reason: DropReason) => void;
  /** First retry delay after a failed write (default 200 ms), doubled up to `retryMaxMs`. */
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** How long `close()` keeps retrying a failing store (default {@link DEFAULT_CLOSE_TIMEOUT_MS}). */
  closeTimeoutMs?: number;
  /**
   * Given what the store did not take, to keep it elsewhere (spill.ts): by `close()` what is left at
   * the deadline (`closed`), or the records the store refused (`rejected`). Absent or rejecting:
   * those records are dropped.
   */
  spill?: (records: LogRecord[], reason: 'closed' | 'rejected') => Promise<void>;
  logger?: { warn(message: string, meta?: Record<string, unknown>): void };
}

export interface LogQueue {
  enqueue(record: LogRecord): void;
  /** Writes everything queued now; rejects (keeping the records) if the store fails. */
  flush(): Promise<void>;
  /**
   * Stops the timers and flushes, retrying until the close deadline; then spills what is left
   * (or drops it when there is no spill or it fails). Never takes much longer than the deadline.
   */
  close(): Promise<void>;
  readonly depth: number;
  readonly dropped: number;
  /** Records handed to `spill`: at close, or refused by the store. */
  readonly spilled: number;
  /** Records the store refused while it answered (a value it cannot hold): spilled, or dropped without a spill. */
  readonly refused: number;
  /** Records queued without their bodies because the queue was filling up. */
  readonly stripped: number;
}

/** Creates a log queue writing into `store` (which the caller still owns and closes). */
export function createLogQueue(store: LogStore, options: LogQueueOptions): LogQueue {
  const batchSize = Math.max(1, options.batchSize);
  /** At most this many records queued after QUIET_FLUSH_MS: a low rate, written at once (none below batches of 8). */
  const quietDepth = Math.floor(batchSize / 8);
  const max = Math.max(1, options.max);
  const stripAt = options.stripBodiesAt ?? Math.floor(max / 2);
  const retryBase = options.retryBaseMs ?? 200;
  const retryMax = options.retryMaxMs ?? 30_000;
  const logger = options.logger ?? { warn: (m: string, meta?: object) => console.warn(m, meta ?? '') };
  const items: LogRecord[] = [];
  let dropped = 0;
  let spilled = 0;
  let refused = 0;
  let stripped = 0;
  let failures = 0;
  let closed = false;
  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let retryTimer: NodeJS.Timeout | undefined;

  function drop(record: LogRecord, reason: DropReason, error?: unknown): void {
    dropped++;
    options.onDrop?.(record, reason);
    // Logged per record: a lost billing row must leave its bill in the log collector.
    logger.warn('log record dropped', { ...billingTrace(record), reason, dropped, error: error ? String(error) : undefined });
  }

  async function writeBatch(batch: LogRecord[]): Promise<void> {
    try {
      await store.insertBatch(batch);
      return;
    } catch (error) {
      const storeUp = failures >= 1 && (await store.ping().then(() => true, () => false));
      if (!storeUp) throw error;
    }
    // Second failure with a healthy store: isolate the records the database refuses.
    const rejected: Array<{ record: LogRecord; error: unknown }> = [];
    for (const record of batch) {
      try {
        await store.insertBatch([record]);
      } catch (error) {
        rejected.push({ record, error });
      }
    }
    if (rejected.length > 0) await keepRejected(rejected);
  }

  /** Refused rows go to the spill file (stored at the next start); dropped only when that fails too. */
  async function keepRejected(rejected: Array<{ record: LogRecord; error: unknown }>): Promise<void> {
    refused += rejected.length;
    for (const { record, error } of rejected) {
      logger.warn('log record refused by the store', { ...billingTrace(record), refused, error: String(error) });
    }
    if (options.spill) {
      try {
        await options.spill(rejected.map((r) => r.record), 'rejected');
        spilled += rejected.length;
        return;
      } catch (error) {
        logger.warn('could not spill the refused log records', { records: rejected.length, error: String(error) });
      }
    }
    for (const { record, error } of rejected) drop(record, 'rejected', error);
  }

  /**
   * Writes full batches; with `all` (timer, flush, close), also the partial last one of what was
   * queued when it started. Records that arrive during the writes wait for a full batch or their
   * own timer: draining them too wrote, under steady load, one small batch after another as fast
   * as the worker answered (~70 rows each at 10,000 req/s instead of 200; each batch pays a commit,
   * the index pages it touches and a hand-off; bench/README.md, twelfth session).
   */
  async function pump(all: boolean): Promise<void> {
    let owed = all ? items.length : 0;
    while (items.length >= batchSize || owed > 0) {
      const batch = items.slice(0, batchSize);
      await writeBatch(batch);
      items.splice(0, batch.length);
      owed -= batch.length;
      failures = 0;
    }
  }

  function run(all: boolean): Promise<void> {
    if (!running) {
      if (all) {
        clearTimeout(timer);
        timer = undefined;
      }
      running = pump(all)
        .catch((error) => {
          failures++;
          if (failures === 1 || failures % 10 === 0) {
            logger.warn('log store write failed; retrying', { failures, depth: items.length, error: String(error) });
          }
          if (!closed) scheduleRetry();
          throw error;
        })
        .finally(() => {
          running = undefined;
          // A partial batch left behind (or records that came during the write) waits its turn.
          if (items.length > 0) schedule();
        });
    }
    return running;
  }

  async function flush(): Promise<void> {
    // A run writes what was queued when it started: loop until nothing is left or in flight.
    while (items.length > 0 || running) await run(true);
  }

  function kick(all: boolean): void {
    run(all).catch(() => {});
  }

  function scheduleRetry(): void {
    clearTimeout(retryTimer);
    const delay = Math.min(retryMax, retryBase * 2 ** Math.min(failures - 1, 20));
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      kick(true);
    }, delay);
    retryTimer.unref?.();
  }

  function schedule(): void {
    if (running || retryTimer || closed) return;
    if (items.length >= batchSize) {
      kick(false);
    } else if (!timer) {
      // A quiet queue is written soon: a batch of a few rows is a short burst on the worker's core,
      // which at low rates is what the slowest calls wait behind (bench/README.md, twelfth session).
      // A busy one waits out the interval or a full batch: fewer, fuller batches cost less a row.
      const quietMs = Math.min(QUIET_FLUSH_MS, options.flushIntervalMs);
      arm(quietMs, () => {
        if (items.length <= quietDepth) kick(true);
        else arm(options.flushIntervalMs - quietMs, () => kick(true));
      });
    }
  }

  function arm(ms: number, fire: () => void): void {
    timer = setTimeout(() => {
      timer = undefined;
      fire();
    }, ms);
    timer.unref?.();
  }

  return {
    enqueue(record) {
      if (closed) return drop(record, 'closed');
      if (items.length >= max) return drop(record, 'full');
      if (items.length >= stripAt && (record.request != null || record.response != null)) {
        record = { ...record, request: null, response: null };
        stripped++;
      }
      items.push(record);
      schedule();
    },

    flush,

    async close() {
      closed = true;
      clearTimeout(timer);
      clearTimeout(retryTimer);
      timer = retryTimer = undefined;
      const deadline = Date.now() + Math.max(0, options.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS);
      for (let attempt = 0; items.length > 0 || running; attempt++) {
        if ((await within(flush(), deadline - Date.now())) === 'done') return;
        const pause = Math.min(retryMax, CLOSE_RETRY_MAX_MS, retryBase * 2 ** Math.min(attempt, 20), deadline - Date.now());
        if (pause <= 0) break;
        await new Promise((r) => setTimeout(r, pause));
      }
      // The deadline: the records of a write still in flight go too (a late success is harmless).
      const left = items.splice(0);
      if (left.length === 0) return;
      if (options.spill) {
        try {
          await options.spill(left, 'closed');
          spilled += left.length;
          return;
        } catch (error) {
          logger.warn('could not spill the unwritten log records', { records: left.length, error: String(error) });
          for (const record of left) drop(record, 'closed', error);
          return;
        }
      }
      for (const record of left) drop(record, 'closed');
    },

    get depth() {
      return items.length;
    },
    get dropped() {
      return dropped;
    },
    get spilled() {
      return spilled;
    },
    get refused() {
      return refused;
    },
    get stripped() {
      return stripped;
    },
  };
}

/** How `work` settled within `ms`: `done`, `failed`, or `late` (still running; never awaited again). */
export function within(work: Promise<unknown>, ms: number): Promise<'done' | 'failed' | 'late'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(resolve, Math.max(0, ms), 'late')));
  const settled = work.then(() => 'done' as const, () => 'failed' as const);
  return Promise.race([settled, late]).finally(() => clearTimeout(timer));
}
