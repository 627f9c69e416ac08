/** Account settings: the service (the auth step's `settings` reader) and `/v1/settings`. */
import type { FeatureContext, Installed } from '../../http/feature.ts';
import { settingsRoutes } from './routes.ts';
import { createSettingsService } from './service.ts';
import { carryZoneChange } from '../../quota/zone-change.ts';

export async function installSettings({ runtime, logger }: FeatureContext): Promise<Installed> {
  const service = await createSettingsService(runtime.store, logger, {
    onTimeZoneChange: (accountId, from, to) => {
      const keys = runtime.current().config.keys.filter((key) => key.account === accountId);
      return carryZoneChange(runtime.store, keys, from, to, Date.now());
    },
    // Once the settings cache has expired everywhere and a call admitted under the old zone has ended.
    lateFollowUpMs: Math.max(30_000, runtime.current().config.timeouts.total) + 5_000,
  });
  return { services: { settings: service }, routes: settingsRoutes(service), close: () => service.close() };
}
