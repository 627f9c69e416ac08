/**
 * Installs call logs, statistics, metrics and notifications: the log service
 * (`runtime.services.logs`, the sink of the log step), its health probes, the metrics registry
 * (`runtime.services.metrics`), the notification jobs, and their routes.
 *
 * Service order matters at shutdown (gateway.close() closes services in insertion order, after
 * the pipeline has drained): notifications stop first, then the log queue is flushed into the
 * store, which closes last.
 */
import type { Gateway } from '../gateway.ts';
import { createMetrics } from '../metrics/service.ts';
import { createNotificationService } from '../notifications/service.ts';
import type { Logger } from '../pipeline/types.ts';
import { logRoutes } from '../routes/logs.ts';
import { metricsRoutes } from '../routes/metrics.ts';
import { statisticsRoutes } from '../routes/statistics.ts';
import type { HealthProbe } from '../routes/system.ts';
import type { RouteDef } from '../routes/types.ts';
import { createLogService, logHealthProbes } from './service.ts';

export async function installLogs(gateway: Gateway, logger: Logger): Promise<RouteDef[]> {
  const { runtime, env } = gateway;
  const services = runtime.services;
  const logs = await createLogService({ runtime, env, logger });
  const metrics = createMetrics();
  metrics.gauge('log_queue_depth', 'Call-log records waiting to be written.', () => logs.queue.depth);
  metrics.gauge('log_queue_dropped', 'Call-log records dropped since start (queue full or refused).', () => logs.queue.dropped);
  services.metrics = metrics;
  const notifications = createNotificationService(runtime, logs, logger);
  if (notifications) services.notifications = notifications;
  services.logs = logs;
  const probes = (services.healthProbes as HealthProbe[] | undefined) ?? [];
  probes.push(...logHealthProbes(logs));
  services.healthProbes = probes;
  logger.info('call logs ready', { store: logs.store.kind });
  return [...logRoutes, ...statisticsRoutes, ...metricsRoutes];
}
