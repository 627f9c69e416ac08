/**
 * The management feature: the write-back writer, the /v1/api-keys and /v1/admin/{providers,
 * models,groups,users} routes, cross-instance change propagation (with Redis), and counter
 * persistence (without). Installed from src/features.ts.
 */
import type { Gateway } from '../gateway.ts';
import type { Logger } from '../pipeline/types.ts';
import { groupRoutes } from '../routes/admin-groups.ts';
import { modelRoutes } from '../routes/admin-models.ts';
import { providerRoutes } from '../routes/admin-providers.ts';
import { userRoutes } from '../routes/admin-users.ts';
import { apiKeyRoutes } from '../routes/api-keys.ts';
import type { RouteDef } from '../routes/types.ts';
import { persistCounters } from './counters.ts';
import { createConfigWriter, followConfigChanges, type ConfigWriter } from './write-back.ts';

export interface ManagementService {
  writer: ConfigWriter;
  close(): Promise<void>;
}

/** Sets up management and returns its routes; registers `runtime.services.management`. */
export async function installManagement(gateway: Gateway, logger: Logger): Promise<RouteDef[]> {
  const writer = createConfigWriter(gateway, logger);
  const unsubscribe = gateway.runtime.store.kind === 'redis' ? await followConfigChanges(gateway, writer, logger) : null;
  const counters = await persistCounters(gateway.runtime, logger);
  const service: ManagementService = {
    writer,
    async close() {
      await unsubscribe?.().catch(() => {});
      await counters.close();
    },
  };
  gateway.runtime.services.management = service;
  return [...apiKeyRoutes(writer), ...providerRoutes(writer), ...modelRoutes(writer), ...groupRoutes(writer), ...userRoutes(writer)];
}
