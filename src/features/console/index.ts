/**
 * The operator's web console under /console: the built single-page app (static.ts), the options
 * it reads before sign-in (config.json) and the company SSO steps (sso-interaction.ts). Everything
 * else the console does goes through the public API with the OAuth token it signed in with, so a
 * script can do whatever the console does. Nothing here runs on the inference routes.
 */
import type { H3Event } from 'h3';
import type { FeatureContext, Installed } from '../../http/feature.ts';
import { safe } from '../../http/handle.ts';
import type { ProviderHandle } from '../oauth/provider-handle.ts';
import type { Runtime } from '../../pipeline/runtime.ts';
import { CONSOLE_CLIENT_ID, CONSOLE_PATH, CONSOLE_SCOPES, consoleRedirectUri } from './client.ts';
import { createStaticHandler } from './static.ts';
import { createSsoHandlers, ssoCallbackPath } from './sso-interaction.ts';
import { createConsoleSessions } from './session.ts';

/** What the sign-in page needs to know: how to start the flow, and whether SSO is offered. */
function publicOptions(runtime: Runtime) {
  const sso = runtime.current().config.console.sso;
  return {
    client_id: CONSOLE_CLIENT_ID,
    redirect_uri: consoleRedirectUri(runtime.baseUrl),
    scopes: CONSOLE_SCOPES,
    sso: sso ? { name: sso.name } : null,
  };
}

/** The console's pages and SSO steps; it signs in through the OAuth server `provider`. */
export function installConsole({ gateway, logger }: FeatureContext, provider: ProviderHandle): Installed {
  const sso = createSsoHandlers(provider, gateway, logger);
  const serveStatic = createStaticHandler();
  const sessions = createConsoleSessions(provider, gateway.runtime, logger);
  return {
    mount(app) {
      app.get(
        `${CONSOLE_PATH}/config.json`,
        safe(logger, () => new Response(JSON.stringify(publicOptions(gateway.runtime)), { headers: { 'content-type': 'application/json', 'cache-control': 'no-store' } })),
      );
      app.post(`${CONSOLE_PATH}/session`, safe(logger, (event: H3Event) => sessions.start(event.req)));
      app.post(`${CONSOLE_PATH}/session/token`, safe(logger, (event: H3Event) => sessions.token(event.req)));
      app.delete(`${CONSOLE_PATH}/session`, safe(logger, (event: H3Event) => sessions.end(event.req)));
      app.get(ssoCallbackPath, safe(logger, (event: H3Event) => sso.callback(event)));
      app.get(`${CONSOLE_PATH}/sso/:uid`, safe(logger, (event: H3Event) => sso.start(event)));
      const page = safe(logger, (event: H3Event) => serveStatic(event.req));
      for (const path of [CONSOLE_PATH, `${CONSOLE_PATH}/**`]) {
        app.get(path, page);
        app.head(path, page);
      }
    },
  };
}
