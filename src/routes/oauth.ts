/**
 * Mounts the OAuth server into the h3 app: our interaction pages, then oidc-provider's own
 * Node handler for everything else under /oauth and for the discovery document. Nothing in front
 * of the provider reads the body: it parses the raw request itself.
 */
import { fromNodeHandler, type H3, type H3Event, type NodeHandler } from 'h3';
import type Provider from 'oidc-provider';
import { safe } from '../http/handle.ts';
import { OAUTH_ROUTES } from '../oauth/provider.ts';
import { routeNotFound } from '../pipeline/errors.ts';
import type { Logger } from '../pipeline/types.ts';
import type { Runtime } from '../runtime.ts';
import { createInteractionHandlers } from './interaction.ts';

/**
 * Registers `/oauth/interaction/:uid` (GET form, POST submit), `/oauth/**` and
 * `/.well-known/openid-configuration`.
 */
export function mountOAuth(app: H3, provider: Provider, runtime: Runtime, logger: Logger): void {
  const interaction = createInteractionHandlers(provider, runtime, logger);
  app.get('/oauth/interaction/:uid', safe(logger, (event: H3Event) => interaction.show(event)));
  app.post('/oauth/interaction/:uid', safe(logger, (event: H3Event) => interaction.submit(event)));
  // srvx's Node adapter hands us http1 IncomingMessage/ServerResponse pairs, which is what Koa expects.
  const callback = fromNodeHandler(provider.callback() as unknown as NodeHandler);
  // Only the provider's own endpoints (and their sub-paths) reach it: for anything else its Koa
  // app would answer a plain-text "Not Found" instead of our error shape.
  const served = Object.values(OAUTH_ROUTES);
  const isServed = (path: string) => served.some((route) => path === route || path.startsWith(`${route}/`));
  app.all(
    '/oauth/**',
    safe(logger, (event: H3Event) => {
      const { pathname } = event.url;
      if (!isServed(pathname)) throw routeNotFound(event.req.method, pathname);
      return callback(event) as Promise<Response>;
    }),
  );
  app.all('/.well-known/openid-configuration', callback);
}
