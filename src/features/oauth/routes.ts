/**
 * Mounts the OAuth server into the h3 app: our interaction pages, then oidc-provider's own
 * Node handler for everything else under /oauth and for the discovery document. Nothing in front
 * of the provider reads the body: it parses the raw request itself.
 */
import { fromNodeHandler, type H3, type H3Event, type NodeHandler } from 'h3';
import type Provider from 'oidc-provider';
import type { SecurityService } from '../security/service.ts';
import { safe } from '../../http/handle.ts';
import { DISCOVERY_PATH } from './provider.ts';
import { endpointMethods, wrongMethod } from './endpoint-methods.ts';
import { routeNotFound } from '../../kernel/errors.ts';
import type { Logger } from '../../pipeline/types.ts';
import type { Runtime } from '../../pipeline/runtime.ts';
import { requestIp } from '../../http/client-ip.ts';
import { oauthRefusal } from '../../http/request-limit.ts';
import { errorPage, html } from './views.ts';
import { fromAcceptLanguage } from '../../i18n/language.ts';
import { createInteractionHandlers } from './interaction-routes.ts';
import type { ProviderHandle } from './provider-handle.ts';

/**
 * Registers `/oauth/interaction/:uid` (GET form, POST submit), `/oauth/**` and
 * `/.well-known/openid-configuration`, each limited per client address in the OAuth budget
 * (`oauth.rate_limit`, http/request-limit.ts, apart from the management API's):
 * the pages answer an HTML page, the provider's endpoints the OAuth error form.
 */
export function mountOAuth(app: H3, provider: ProviderHandle, runtime: Runtime, security: SecurityService, logger: Logger): void {
  /** What `make` builds for the provider in force, built once per provider (a new one comes with new keys). */
  const perProvider = <T>(make: (built: Provider) => T) => {
    const made = new WeakMap<Provider, T>();
    return async () => {
      const built = await provider();
      let value = made.get(built);
      if (value === undefined) made.set(built, (value = make(built)));
      return value;
    };
  };
  const interaction = perProvider((built) => createInteractionHandlers(built, runtime, security, logger));
  const ipOf = (event: H3Event) => requestIp(event.req, runtime.current().config.server.trusted_proxies);
  const page = (handle: (event: H3Event) => Promise<Response>) =>
    safe(logger, async (event: H3Event) => {
      const refused = await oauthRefusal(runtime, ipOf(event));
      if (!refused) return handle(event);
      const answer = html(errorPage(fromAcceptLanguage(event.req.headers.get('accept-language')), 'tooManyRequests'), 429);
      answer.headers.set('retry-after', String(Math.max(1, Math.ceil(refused.retryAfterS))));
      return answer;
    });
  app.get('/oauth/interaction/:uid', page(async (event) => (await interaction()).show(event)));
  app.post('/oauth/interaction/:uid', page(async (event) => (await interaction()).submit(event)));
  // srvx's Node adapter hands us http1 IncomingMessage/ServerResponse pairs, which is what Koa expects.
  const handler = perProvider((built) => fromNodeHandler(built.callback() as unknown as NodeHandler));
  const callback = async (event: H3Event) => (await handler())(event) as Promise<Response>;
  /**
   * Only the provider's own endpoints, with their methods, reach it: for anything else its router
   * would answer a plain-text "Not Found" instead of our error shape (endpoint-methods.ts).
   */
  const served = async (event: H3Event) => {
    const { pathname } = event.url;
    const allowed = endpointMethods(pathname);
    if (!allowed) throw routeNotFound(event.req.method, pathname);
    if (!allowed.includes(event.req.method)) return wrongMethod(event.req.method, pathname, allowed);
    return callback(event);
  };
  /** A provider endpoint behind the per-address limit; over it, the OAuth error form. */
  const endpoint = (handle: (event: H3Event) => Promise<Response>) =>
    safe(logger, async (event: H3Event) => {
      const refused = await oauthRefusal(runtime, ipOf(event));
      if (!refused) return handle(event);
      // RFC 6749 has no rate-limit error; temporarily_unavailable is the closest it defines.
      return new Response(JSON.stringify({ error: 'temporarily_unavailable', error_description: 'Too many requests from this address. Retry later.' }), {
        status: 429,
        headers: { 'content-type': 'application/json', 'cache-control': 'no-store', 'retry-after': String(Math.max(1, Math.ceil(refused.retryAfterS))) },
      });
    });
  app.all('/oauth/**', endpoint(served));
  app.all(DISCOVERY_PATH, endpoint(served));
}
