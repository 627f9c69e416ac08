/**
 * The running log service: opens the log store (`DATABASE_URL` → PostgreSQL, else SQLite under
 * `GATEWAY_DATA_DIR`), puts the bounded write queue in front of it, and is the `LogSink` the log
 * pipeline step hands finished calls to (registered as `runtime.services.logs`).
 *
 * `enqueue` converts the call into its ledger row (billing.ts) and queues it: no I/O on the
 * request path. `close()` stops retention, flushes the queue, then closes the store, in that
 * order, so a shutdown writes everything accepted before it. A store that fails at shutdown is
 * retried for `GATEWAY_FLUSH_TIMEOUT_MS`; what it still has not taken then is written to a spill
 * file (spill.ts), which the next start stores in the background (spill-replay.ts).
 *
 * Queue sizes come from `logs:` at start; a reload changes the retention age only.
 */
import type { GatewayConfig } from '../../config/types.ts';
import type { CallRecord, LogSink } from '../../plugins/log-record.ts';
import type { Logger } from '../../pipeline/types.ts';
import type { HealthProbe } from '../../pipeline/services.ts';
import type { Runtime } from '../../pipeline/runtime.ts';
import { toLogRecord } from './billing.ts';
import { createLogStore } from './log-store.ts';
import { createLogQueue, DEFAULT_CLOSE_TIMEOUT_MS, within, type LogQueue } from './queue.ts';
import { startRetention, type RetentionJob } from './retention.ts';
import { spillDirOf, writeSpillFile } from './spill.ts';
import { replaySpills, type SpillReplay } from './spill-replay.ts';
import { openRedisSpill, REDIS_SPILL_DEADLINE_MS, type RedisSpill } from './spill-redis.ts';
import type { LogRecord, LogStore } from './types.ts';
import { millisecondsFromEnv } from '../../kernel/env-duration.ts';

/** Share of `queue_max` from which the health `queue` component is degraded. */
export const QUEUE_DEGRADED_RATIO = 0.8;
/**
 * At shutdown, the longest waits for a retention pass in progress and for the store to close: on a
 * PostgreSQL server that stopped answering, a query in flight (and the pool's end, which waits for
 * it) lasts up to the 30 s query timeout, and the shutdown must stay inside the grace period.
 * Nothing is lost by going on: the queue has written or spilled its records by then.
 */
export const RETENTION_STOP_TIMEOUT_MS = 1_000;
export const STORE_CLOSE_TIMEOUT_MS = 3_000;

/** `GATEWAY_FLUSH_TIMEOUT_MS` (milliseconds, default 15 s); anything but a number >= 0 stops the start. */
export const flushTimeoutFrom = (env: NodeJS.ProcessEnv) => millisecondsFromEnv(env, 'GATEWAY_FLUSH_TIMEOUT_MS', DEFAULT_CLOSE_TIMEOUT_MS);

export interface LogService extends LogSink {
  readonly store: LogStore;
  readonly queue: LogQueue;
  readonly retention: RetentionJob;
  /** Storing the spill files found at start. */
  readonly replay: SpillReplay;
  /** The Redis spill list (REDIS_URL set): pushed to at shutdown, stored by every instance. */
  readonly redisSpill?: RedisSpill;
  readonly queueMax: number;
  /** Called with every ledger row queued (metrics, notifications). */
  onRecord(listener: (record: LogRecord, call: CallRecord) => void): void;
  close(): Promise<void>;
}

export interface LogServiceOptions {
  runtime: Runtime;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /** Overrides `logs:` of the current snapshot (tests). */
  logs?: GatewayConfig['logs'];
  /** Retention job period (default 1 h). */
  retentionIntervalMs?: number;
}

/** Opens the store (migrations included) and starts the queue and the retention job. */
export async function createLogService(options: LogServiceOptions): Promise<LogService> {
  const { runtime, env, logger } = options;
  const config = options.logs ?? runtime.current().config.logs;
  const closeTimeoutMs = flushTimeoutFrom(env);
  const spillDir = spillDirOf(runtime.dataDir);
  const store = await createLogStore({
    dataDir: runtime.dataDir,
    databaseUrl: env.DATABASE_URL || undefined,
    pgSchema: env.DATABASE_SCHEMA || undefined,
    onError: (error) => logger.warn('log database error', { error: String(error) }),
  });
  // With Redis the spilled rows outlive the pod (an emptyDir data directory does not).
  const redisUrl = env.REDIS_URL?.trim();
  const redisSpill: RedisSpill | undefined = redisUrl
    ? await openRedisSpill(redisUrl, logger, { prefix: env.GATEWAY_REDIS_PREFIX || undefined, batchSize: config.batch_size })
    : undefined;
  const queue = createLogQueue(store, {
    batchSize: config.batch_size,
    flushIntervalMs: config.flush_interval_ms,
    max: config.queue_max,
    closeTimeoutMs,
    async spill(records, reason) {
      // A row the store refused while it answered would block the head of the Redis list: a file.
      if (redisSpill && reason !== 'rejected') {
        try {
          await within(redisSpill.push(records), REDIS_SPILL_DEADLINE_MS).then((how) => {
            if (how !== 'done') throw new Error(how === 'late' ? 'Redis did not answer in time' : 'Redis refused the push');
          });
          logger.warn('log store unavailable at shutdown: log records spilled to Redis, stored by the next instance that reaches the store', {
            records: records.length, flush_timeout_ms: closeTimeoutMs,
          });
          return;
        } catch (error) {
          logger.warn('cannot spill the log records to Redis: writing a spill file instead', { error: String(error) });
        }
      }
      const file = await writeSpillFile(spillDir, records);
      if (reason === 'rejected') {
        logger.error('log records refused by the store: saved to a spill file, tried again at the next start', { file, records: records.length });
      } else {
        logger.warn('log store unavailable at shutdown: log records saved to a spill file, stored at the next start', {
          file, records: records.length, flush_timeout_ms: closeTimeoutMs,
        });
      }
    },
    logger,
  });
  const replay = replaySpills(store, spillDir, logger, { batchSize: config.batch_size });
  redisSpill?.replayInto(store);
  const retention = startRetention(store, () => runtime.current().config.logs.retention_days, logger, options.retentionIntervalMs);
  return logServiceOf({ store, queue, retention, replay, redisSpill, queueMax: config.queue_max }, logger);
}

/** What a log service is made of: its store and the jobs started around it. */
export type LogServiceParts = Pick<LogService, 'store' | 'queue' | 'retention' | 'replay' | 'redisSpill' | 'queueMax'>;

/**
 * The service around its parts. The start rehearsal (src/boot/rehearsal.ts) makes its own here,
 * around a store that keeps nothing, so that the log step meets one shape and one `enqueue`
 * whether it runs in the rehearsal or for real (bench/README.md, issue 37).
 */
export function logServiceOf(parts: LogServiceParts, logger: Logger): LogService {
  const { store, queue, retention, replay, redisSpill } = parts;
  const listeners: Array<(record: LogRecord, call: CallRecord) => void> = [];
  let closing: Promise<void> | undefined;

  return {
    store,
    queue,
    retention,
    replay,
    redisSpill,
    queueMax: parts.queueMax,
    enqueue(call) {
      let record: LogRecord;
      try {
        record = toLogRecord(call);
      } catch (error) {
        logger.error('could not build the log record', { id: call.id, error: String(error) });
        return;
      }
      queue.enqueue(record);
      for (const listener of listeners) {
        try {
          listener(record, call);
        } catch (error) {
          logger.warn('log listener failed', { id: call.id, error: String(error) });
        }
      }
    },
    onRecord(listener) {
      listeners.push(listener);
    },
    close() {
      closing ??= (async () => {
        replay.stop();
        await waitAtMost(retention.stop(), RETENTION_STOP_TIMEOUT_MS, 'log retention stop', logger);
        await queue.close();
        await redisSpill?.close();
        await waitAtMost(store.close(), STORE_CLOSE_TIMEOUT_MS, 'log store close', logger);
      })();
      return closing;
    },
  };
}

/** Waits for `work` at most `ms` (the process is about to exit), logging a failure or the give-up. */
async function waitAtMost(work: Promise<unknown>, ms: number, what: string, logger: Logger): Promise<void> {
  const failure = work.catch((error: unknown) => logger.warn(`${what} failed`, { error: String(error) }));
  if ((await within(failure, ms)) === 'late') logger.warn(`${what} still running; going on without it`, { waited_ms: ms });
}

/** The `database` and `queue` components of `/v1/system/health`. */
export function logHealthProbes(service: LogService): HealthProbe[] {
  return [
    {
      name: 'database',
      async check() {
        const latency = await service.store.ping();
        return { latency, detail: { kind: service.store.kind } };
      },
    },
    {
      name: 'queue',
      async check() {
        const { depth, dropped, stripped } = service.queue;
        const status = depth > service.queueMax * QUEUE_DEGRADED_RATIO ? ('degraded' as const) : undefined;
        return { latency: 0, status, detail: { depth, max: service.queueMax, dropped, stripped } };
      },
    },
  ];
}
