/**
 * Call logs: the log service (the log step's `logs` sink: a bounded queue in front of SQLite or
 * PostgreSQL), its health probes, and `/v1/logs` and `/v1/admin/logs`. Closing flushes the
 * queue into the store, then closes the store.
 */
import type { FeatureContext, Installed } from '../../http/feature.ts';
import { logRoutes } from './routes.ts';
import { createLogService, logHealthProbes, type LogService } from './service.ts';

export async function installLogs({ runtime, env, logger }: FeatureContext): Promise<Installed & { service: LogService }> {
  const service = await createLogService({ runtime, env, logger });
  logger.info('call logs ready', { store: service.store.kind });
  return {
    service,
    services: { logs: service },
    healthProbes: logHealthProbes(service),
    routes: logRoutes(service.store),
    close: () => service.close(),
  };
}
