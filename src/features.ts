/**
 * Optional feature modules installed at start (logs, statistics, management, OAuth...). Each
 * contributes routes and services; this is the one place that wires them together.
 */
import type { Gateway } from './gateway.ts';
import type { Logger } from './pipeline/types.ts';
import type { ServerOptions } from './server.ts';
import { installManagement } from './management/index.ts';
import { responsesFeature } from './responses/index.ts';
import { installOAuth } from './oauth/index.ts';
import { installSecurity } from './security/index.ts';
import { installSettings } from './settings/install.ts';
import { installLogs } from './logs/install.ts';

export async function installFeatures(_gateway: Gateway, _logger: Logger): Promise<ServerOptions> {
  const routes = [...(await installManagement(_gateway, _logger))];
  routes.push(...(await installSettings(_gateway, _logger)), ...(await installLogs(_gateway, _logger)));
  const responses = responsesFeature(_gateway, _logger);
  routes.push(...responses.routes);
  const oauth = await installOAuth(_gateway, _logger);
  routes.push(...installSecurity(_gateway, _logger));
  return {
    routes,
    inference: [],
    mount: (app) => {
      responses.mount(app);
      oauth.mount(app);
    },
  };
}
