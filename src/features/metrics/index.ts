/** Prometheus metrics: the registry the log step feeds, the call-log queue gauges, and `GET /metrics`. */
import cluster from 'node:cluster';
import type { FeatureContext, Installed } from '../../http/feature.ts';
import type { LogService } from '../logs/service.ts';
import { GROUP_ENV, joinGroupMetrics } from './cluster.ts';
import { metricsRoutes } from './routes.ts';
import { createMetrics } from './service.ts';

export function installMetrics(ctx: FeatureContext, logs: LogService): Installed {
  const metrics = createMetrics();
  // Summed over the workers of a group (cluster.ts): the records waiting in, and dropped by, all their queues.
  metrics.gauge('log_queue_depth', 'Call-log records waiting to be written.', () => logs.queue.depth);
  metrics.gauge('log_queue_dropped', 'Call-log records dropped since start (queue full or refused).', () => logs.queue.dropped);
  // A worker forked by `server.workers` > 1 answers a scrape for the whole group; alone, from its own registry.
  const group = cluster.isWorker && ctx.env[GROUP_ENV] ? joinGroupMetrics(metrics.registry, process) : undefined;
  const service = group ? { ...metrics, render: group.render } : metrics;
  return {
    services: { metrics: service },
    routes: metricsRoutes(service),
    ...(group && { close: async () => group.close() }),
  };
}
