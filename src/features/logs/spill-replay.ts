/**
 * Stores the spill files (spill.ts) left by an earlier shutdown, in the background at start: a
 * store that is still down does not hold the start; the replay retries with backoff until every
 * file is stored or the service closes (the files then wait for the next start).
 *
 * A file is deleted only once all its rows are stored; a stop or a crash midway stores it again
 * next time, which the stores ignore per id (rollups included). A record the store refuses while
 * it answers `ping()` (the record is the problem, not the store) is logged with its billing fields,
 * counted in `refused`, and written to a new spill file, tried again at the next start (a fixed
 * gateway stores it); it is dropped only if that file cannot be written. A file with damaged
 * lines is renamed `*.unreadable` once its good records are stored, and kept for a human.
 */
import { rename, rm } from 'node:fs/promises';
import type { Logger } from '../../pipeline/types.ts';
import { billingTrace } from './billing.ts';
import { listSpillFiles, readSpillFile, writeSpillFile, type SpillFileContent } from './spill.ts';
import type { LogRecord, LogStore } from './types.ts';

export interface SpillReplayOptions {
  /** Records per store write (default 500). */
  batchSize?: number;
  /** First pause after a failed attempt (default 1 s), doubled up to `retryMaxMs` (default 30 s). */
  retryBaseMs?: number;
  retryMaxMs?: number;
}

export interface SpillReplay {
  /** Settles when every file is stored, or after `stop()`. Never rejects. */
  readonly done: Promise<void>;
  /** Stops retrying; a write in flight is not awaited (its file stays if it did not finish). */
  stop(): void;
  /** Records the store refused while it answered (kept in a new spill file unless that failed). */
  readonly refused: number;
}

/**
 * Stores spilled `records` (spill-redis.ts): in batches; when a batch fails while the store
 * answers `ping()`, one by one, dropping (and logging) only the records it refuses. Rejects when
 * the store is down, to be retried.
 */
export async function storeSpilledRecords(store: LogStore, records: LogRecord[], batchSize: number, logger: Logger): Promise<void> {
  for (let i = 0; i < records.length; i += batchSize) {
    const batch = records.slice(i, i + batchSize);
    try {
      await store.insertBatch(batch);
      continue;
    } catch (error) {
      if (!(await store.ping().then(() => true, () => false))) throw error;
    }
    for (const record of batch) {
      try {
        await store.insertBatch([record]);
      } catch (error) {
        if (!(await store.ping().then(() => true, () => false))) throw error;
        logger.warn('spilled log record refused by the store; dropped', { ...billingTrace(record), error: String(error) });
      }
    }
  }
}

/** Starts storing the spill files now in `dir` into `store`. */
export function replaySpills(store: LogStore, dir: string, logger: Logger, options: SpillReplayOptions = {}): SpillReplay {
  const batchSize = Math.max(1, options.batchSize ?? 500);
  const retryBase = options.retryBaseMs ?? 1_000;
  const retryMax = options.retryMaxMs ?? 30_000;
  let stopped = false;
  let refused = 0;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      wake = resolve;
      timer = setTimeout(resolve, ms);
      timer.unref();
    });
  const storeAnswers = () => store.ping().then(() => true, () => false);

  /** With `isolate`, one record per write: the ones the store refuses are kept in a new file. */
  async function storeRecords(records: LogRecord[], isolate: boolean): Promise<void> {
    const rejected: LogRecord[] = [];
    for (let i = 0; i < records.length; i += batchSize) {
      const batch = records.slice(i, i + batchSize);
      if (!isolate) {
        await store.insertBatch(batch);
        continue;
      }
      for (const record of batch) {
        try {
          await store.insertBatch([record]);
        } catch (error) {
          if (!(await storeAnswers())) throw error;
          logger.error('spilled log record refused by the store', { ...billingTrace(record), error: String(error) });
          rejected.push(record);
        }
      }
    }
    if (rejected.length > 0) await keepRejected(rejected);
  }

  async function keepRejected(records: LogRecord[]): Promise<void> {
    refused += records.length;
    try {
      const file = await writeSpillFile(dir, records);
      logger.error('refused log records kept in a spill file, tried again at the next start', { file, records: records.length });
    } catch (error) {
      for (const record of records) {
        logger.error('spilled log record refused by the store; dropped', { ...billingTrace(record), error: String(error) });
      }
    }
  }

  /** Stores one file's records; rejects (to be retried) only when the store fails. */
  async function replayFile(file: string, isolate: boolean): Promise<void> {
    let content: SpillFileContent | null;
    try {
      content = await readSpillFile(file);
    } catch (error) {
      logger.error('cannot read a log spill file; left in place', { file, error: String(error) });
      return;
    }
    if (!content) return; // another process sharing the directory stored it first
    await storeRecords(content.records, isolate);
    logger.info('spilled log records stored', { file, records: content.records.length });
    try {
      if (content.unreadable === 0) await rm(file, { force: true });
      else {
        await rename(file, `${file}.unreadable`);
        logger.error('log spill file has damaged lines: its readable records are stored, the file is kept', {
          file: `${file}.unreadable`, unreadable: content.unreadable,
        });
      }
    } catch (error) {
      // Stored all the same; the next start stores it again, which the store ignores.
      logger.error('cannot remove a stored log spill file', { file, error: String(error) });
    }
  }

  async function run(): Promise<void> {
    let files: string[];
    try {
      files = await listSpillFiles(dir);
    } catch (error) {
      logger.error('cannot list the log spill directory', { dir, error: String(error) });
      return;
    }
    if (files.length > 0) logger.info('storing log records spilled at an earlier shutdown', { files: files.length });
    for (const file of files) {
      for (let failures = 0; !stopped; failures++) {
        try {
          // After a failure with the store answering, the file holds a record it refuses.
          await replayFile(file, failures > 0 && (await storeAnswers()));
          break;
        } catch (error) {
          if (failures === 0 || (failures + 1) % 10 === 0) {
            logger.warn('cannot store spilled log records yet; retrying', { file, failures: failures + 1, error: String(error) });
          }
          if (!stopped) await pause(Math.min(retryMax, retryBase * 2 ** Math.min(failures, 20)));
        }
      }
      if (stopped) return;
    }
  }

  const done = run().catch((error: unknown) => logger.error('log spill replay failed', { error: String(error) }));
  return {
    done,
    stop() {
      stopped = true;
      clearTimeout(timer);
      wake?.();
    },
    get refused() {
      return refused;
    },
  };
}
