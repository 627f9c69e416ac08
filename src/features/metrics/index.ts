/** Prometheus metrics: the registry the log step feeds, the call-log queue gauges, and `GET /metrics`. */
import type { FeatureContext, Installed } from '../../http/feature.ts';
import type { LogService } from '../logs/service.ts';
import { metricsRoutes } from './routes.ts';
import { createMetrics } from './service.ts';

export function installMetrics(_ctx: FeatureContext, logs: LogService): Installed {
  const metrics = createMetrics();
  metrics.gauge('log_queue_depth', 'Call-log records waiting to be written.', () => logs.queue.depth);
  metrics.gauge('log_queue_dropped', 'Call-log records dropped since start (queue full or refused).', () => logs.queue.dropped);
  return { services: { metrics }, routes: metricsRoutes(metrics) };
}
