/**
 * The running log service: opens the log store (`DATABASE_URL` → PostgreSQL, else SQLite under
 * `GATEWAY_DATA_DIR`), puts the bounded write queue in front of it, and is the `LogSink` the log
 * pipeline step hands finished calls to (registered as `runtime.services.logs`).
 *
 * `enqueue` converts the call into its ledger row (billing.ts) and queues it: no I/O on the
 * request path. `close()` stops retention, flushes the queue, then closes the store, in that
 * order, so a shutdown writes everything accepted before it.
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
import { createLogQueue, type LogQueue } from './queue.ts';
import { startRetention, type RetentionJob } from './retention.ts';
import type { LogRecord, LogStore } from './types.ts';

/** Share of `queue_max` from which the health `queue` component is degraded. */
export const QUEUE_DEGRADED_RATIO = 0.8;

export interface LogService extends LogSink {
  readonly store: LogStore;
  readonly queue: LogQueue;
  readonly retention: RetentionJob;
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
  const store = await createLogStore({
    dataDir: runtime.dataDir,
    databaseUrl: env.DATABASE_URL || undefined,
    pgSchema: env.DATABASE_SCHEMA || undefined,
    onError: (error) => logger.warn('log database error', { error: String(error) }),
  });
  const queue = createLogQueue(store, {
    batchSize: config.batch_size,
    flushIntervalMs: config.flush_interval_ms,
    max: config.queue_max,
    logger,
  });
  const retention = startRetention(store, () => runtime.current().config.logs.retention_days, logger, options.retentionIntervalMs);
  const listeners: Array<(record: LogRecord, call: CallRecord) => void> = [];
  let closing: Promise<void> | undefined;

  return {
    store,
    queue,
    retention,
    queueMax: config.queue_max,
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
        await retention.stop();
        await queue.close();
        await store.close();
      })();
      return closing;
    },
  };
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
