/** Account settings: the service (the auth step's `settings` reader) and `/v1/settings`. */
import type { FeatureContext, Installed } from '../../http/feature.ts';
import { settingsRoutes } from './routes.ts';
import { createSettingsService } from './service.ts';

export async function installSettings({ runtime, logger }: FeatureContext): Promise<Installed> {
  const service = await createSettingsService(runtime.store, logger);
  return { services: { settings: service }, routes: settingsRoutes(service), close: () => service.close() };
}
