/** Prometheus metrics: the registry the log step feeds, the call-log queue's depth and drops, and `GET /metrics`. */
import cluster from 'node:cluster';
import type { FeatureContext, Installed } from '../../http/feature.ts';
import type { Endpoint } from '../../pipeline/context.ts';
import type { LogService } from '../logs/service.ts';
import { GROUP_ENV, joinGroupMetrics } from './cluster.ts';
import { startMetricsServer } from './metrics-server.ts';
import { metricsExposure, metricsRoutes, scrape } from './routes.ts';
import { createMetrics } from './service.ts';
import { inFlightOf } from '../../pipeline/in-flight.ts';
import { queuedFor } from '../../plugins/concurrency.ts';

declare module '../../pipeline/services.ts' {
  interface Services {
    /** Counts the inference requests refused before the pipeline ran (the metrics feature). */
    earlyRefusals?: { count(error: unknown, endpoint: Endpoint): void };
  }
}

/**
 * `false` leaves out prom-client's process_* and nodejs_* metrics (memory, CPU, event-loop lag,
 * GC), which are on by default: their idle cost measured within noise, about 0.2 MiB of RSS
 * (bench/idle-memory.ts, 9 starts each), but they keep an event-loop delay timer running.
 */
export const RUNTIME_METRICS_ENV = 'GATEWAY_METRICS_RUNTIME';

export async function installMetrics(ctx: FeatureContext, logs: LogService): Promise<Installed> {
  const metrics = createMetrics('gateway_', { runtime: ctx.env[RUNTIME_METRICS_ENV]?.trim().toLowerCase() !== 'false' });
  // Summed over the workers of a group (cluster.ts): the records waiting in, and dropped by, all their queues.
  metrics.gauge('log_queue_depth', 'Call-log records waiting to be written.', () => logs.queue.depth);
  // A counter: the group keeps an exited worker's count (a gauge's would drop out of the sum).
  metrics.counter('log_queue_dropped_total', 'Call-log records dropped (queue full or refused).', () => logs.queue.dropped);
  // Rows a store refused while it answered (a value it cannot hold): a served call whose row did not
  // land. They are kept in a spill file, not dropped, but each one is a bug to look at.
  metrics.counter('log_rows_refused_total', 'Call-log rows the store refused while it answered (kept in a spill file, tried again at the next start).', () => logs.queue.refused + logs.replay.refused);
  // Records the shutdown could not store (the log database down) and kept for a later start.
  metrics.counter('log_spilled_total', 'Call-log records spilled at shutdown (the store was down), stored again by a later start.', () => logs.queue.spilled);
  // Rows spilled to Redis by a shutdown (src/features/logs/spill-redis.ts), still waiting for the
  // store: as seen by this instance's last look (every 30 s). Across workers, the largest.
  metrics.gauge('log_spill_pending', 'Call-log spill elements (up to 200 rows each) waiting in Redis for the log store.', () => logs.redisSpill?.pending ?? 0, 'max');
  // What a long, low-CPU stream costs: a slot of api.max_concurrent_requests. The autoscaler scales
  // on the in-flight gauge (deploy/kubernetes/monitoring), an alert on it against the limit.
  const inFlight = inFlightOf(ctx.runtime);
  metrics.gauge('inflight_requests', 'Inference requests in flight (queued for a concurrency slot included), until their last byte.', () => inFlight.count);
  metrics.gauge('concurrency_queued', 'Inference requests waiting for a concurrency slot.', () => queuedFor(ctx.runtime));
  metrics.gauge('concurrency_limit', 'api.max_concurrent_requests of this instance (0: no limit).', () => ctx.runtime.current().config.api.max_concurrent_requests);
  // A refused gateway.yaml edit keeps the old config serving and every probe green, while each new
  // pod (scale-up, eviction) crash-loops on it: these let an alert catch it first. Across workers,
  // one that refused counts (min) and the latest attempt (max).
  const reload = () => ctx.runtime.lastReload();
  metrics.gauge('config_last_reload_success', 'Whether the last reload of gateway.yaml was applied (1; 0: refused, the previous config serves).', () => (reload()?.ok === false ? 0 : 1), 'min');
  metrics.gauge('config_last_reload_timestamp_seconds', 'When gateway.yaml was last reloaded or refused (Unix time; the start until then).', () => (Date.parse(reload()?.at ?? '') || ctx.runtime.startedAt) / 1000, 'max');
  // A worker forked by `server.workers` > 1 answers a scrape for the whole group; alone, from its own registry.
  const group = cluster.isWorker && ctx.env[GROUP_ENV] ? joinGroupMetrics(metrics.registry, process) : undefined;
  const service = group ? { ...metrics, render: group.render } : metrics;
  const config = ctx.runtime.current().config;
  const exposure = metricsExposure(ctx.env, config.metrics);
  const server = exposure.port === undefined
    ? undefined
    : await startMetricsServer(exposure.port, ctx.env.HOST ?? config.server.host, (request) => scrape(service, ctx.runtime, exposure, request, 'metrics'), ctx.logger);
  return {
    services: { metrics: service, earlyRefusals: { count: (error, endpoint) => metrics.countRefused(error, endpoint) } },
    routes: metricsRoutes(service, exposure),
    async close() {
      await server?.close();
      group?.close();
    },
  };
}
