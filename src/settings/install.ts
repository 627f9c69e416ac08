/** Installs the settings service (`runtime.services.settings`) and its routes. */
import type { Gateway } from '../gateway.ts';
import type { Logger } from '../pipeline/types.ts';
import { settingsRoutes } from '../routes/settings.ts';
import type { RouteDef } from '../routes/types.ts';
import { createSettingsService } from './service.ts';

export async function installSettings(gateway: Gateway, logger: Logger): Promise<RouteDef[]> {
  const services = gateway.runtime.services;
  services.settings = await createSettingsService(gateway.runtime.store, logger);
  return settingsRoutes;
}
