/**
 * The feature modules installed at start (management, settings, logs and statistics, the
 * responses interface, OAuth, account security). Each contributes routes, raw mounts and
 * services in `runtime.services`; this is the one place that wires them together.
 */
import type { Gateway } from './gateway.ts';
import { installLogs } from './logs/install.ts';
import { installManagement } from './management/index.ts';
import { installOAuth } from './oauth/index.ts';
import { installConsole } from './console/index.ts';
import type { Logger } from './pipeline/types.ts';
import { responsesFeature } from './responses/index.ts';
import { installSecurity } from './security/index.ts';
import type { ServerOptions } from './server.ts';
import { installSettings } from './settings/install.ts';
import { modelListRoutes } from './routes/models.ts';

export async function installFeatures(gateway: Gateway, logger: Logger): Promise<ServerOptions> {
  const responses = responsesFeature(gateway, logger);
  const oauth = await installOAuth(gateway, logger);
  const routes = [
    ...(await installManagement(gateway, logger)),
    ...(await installSettings(gateway, logger)),
    ...(await installLogs(gateway, logger)),
    ...responses.routes,
    ...installSecurity(gateway, logger),
    ...modelListRoutes,
  ];
  const console = installConsole(gateway, logger);
  return {
    routes,
    inference: [responses.inference],
    mount(app) {
      oauth.mount(app);
      console.mount(app);
    },
  };
}
