/**
 * Retention: a background job deleting log rows older than `logs.retention_days` (read from
 * the current snapshot each run, so a reload applies). Rollups are kept, so statistics keep
 * their history. The timer is unref'd: it never holds the process open.
 */
import type { Logger } from '../../pipeline/types.ts';
import type { LogStore } from './types.ts';
import { startPeriodic } from '../../kernel/periodic.ts';

const DAY_MS = 86_400_000;

export interface RetentionJob {
  /** Deletes what is due now; returns the rows removed. */
  runOnce(now?: number): Promise<number>;
  stop(): Promise<void>;
}

/** Starts the job: a first pass shortly after start, then every `intervalMs` (default 1 h). */
export function startRetention(store: LogStore, retentionDays: () => number, logger: Logger, intervalMs = 3_600_000): RetentionJob {
  async function runOnce(now = Date.now()): Promise<number> {
    const days = retentionDays();
    if (!(days > 0)) return 0;
    const removed = await store.deleteOlderThan(now - days * DAY_MS);
    if (removed > 0) logger.info('old logs deleted', { removed, retention_days: days });
    return removed;
  }
  const job = startPeriodic(() => runOnce(), {
    intervalMs,
    firstDelayMs: 5_000,
    onError: (error) => logger.warn('log retention failed', { error: String(error) }),
  });
  return { runOnce, stop: job.stop };
}
