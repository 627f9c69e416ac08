/**
 * The HTTP shell (h3 v2): mounts what the features installed (inference endpoints, management
 * routes behind one door, raw mounts), renders every error in the OpenAI shape, answers 404 for
 * unknown paths and 405 for a known path with the wrong method, and listens.
 */
import cluster from 'node:cluster';
import { Server as NodeHttpServer } from 'node:http';
import { resolve } from 'node:path';
import { H3, type H3Event } from 'h3';
import { serve, type Server } from 'srvx';
import { authenticate } from './auth/authenticate.ts';
import { requireScope, scopeOf } from './auth/route-scopes.ts';
import type { PlatformScope } from './auth/scopes.ts';
import { createGateway, type RunningGateway } from './boot/gateway.ts';
import { rehearsalCallsFrom, rehearse } from './boot/rehearsal.ts';
import { preconnectCountFrom, preconnectUpstreams } from './boot/preconnect.ts';
import { answerClientErrors } from './http/client-error.ts';
import { requestIp } from './http/client-ip.ts';
import { renderError, safe } from './http/handle.ts';
import { MAX_BODY_DEPTH, nestedDeeperThan } from './http/json-depth.ts';
import { readJsonBody } from './http/read-body.ts';
import { limitManagementCall } from './http/request-limit.ts';
import type { ApiContext, RouteDef } from './http/route.ts';
import { errorResponse, forbidden, invalidBody, invalidPath, methodNotAllowed, routeNotFound } from './kernel/errors.ts';
import type { Logger } from './kernel/logger.ts';
import type { StateStore } from './store/types.ts';

const peerIp = (event: H3Event, gateway: RunningGateway) => requestIp(event.req, gateway.runtime.current().config.server.trusted_proxies);

/** Compile an h3 path pattern to a regex, for the 405 check. */
const patternOf = (path: string) => new RegExp(`^${path.replace(/:[^/]+/g, '[^/]+').replace(/\*\*$/, '.*')}/?$`);

export function createServerApp(gateway: RunningGateway, logger: Logger): H3 {
  const app = new H3({
    // Only errors h3 raises itself reach here (handlers run inside `safe`): a path with malformed
    // percent-encoding is refused before routing.
    onError: (error) => (error.status === 400 ? errorResponse(invalidPath()) : renderError(error, logger)),
  });
  const known: Array<{ pattern: RegExp; method: string }> = [];
  const { features } = gateway;

  for (const route of features.flatMap((feature) => feature.inference ?? [])) {
    known.push({ pattern: patternOf(route.path), method: 'POST' });
    app.post(route.path, safe(logger, (event: H3Event) => route.handle(event.req, peerIp(event, gateway))));
  }

  for (const route of features.flatMap((feature) => feature.routes ?? [])) {
    known.push({ pattern: patternOf(route.path), method: route.method });
    // Looked up once here: a route without a declared scope stops the start, not a request.
    const scope = route.access === 'public' ? null : scopeOf(route.method, route.path);
    const handler = safe(logger, (event: H3Event) => runRoute(gateway, route, scope, event));
    app.on(route.method, route.path, handler);
    // HEAD wherever GET is (RFC 9110 9.1): load balancers probe health that way. Node sends no body.
    if (route.method === 'GET') {
      known.push({ pattern: patternOf(route.path), method: 'HEAD' });
      app.on('HEAD', route.path, handler);
    }
  }

  for (const feature of features) feature.mount?.(app);

  app.all(
    '/**',
    safe(logger, (event: H3Event) => {
      const { pathname } = new URL(event.req.url);
      const allowed = known.filter((k) => k.pattern.test(pathname)).map((k) => k.method);
      if (allowed.length) throw methodNotAllowed(event.req.method, pathname, [...new Set(allowed)]);
      throw routeNotFound(event.req.method, pathname);
    }),
  );
  return app;

  async function runRoute(gw: RunningGateway, route: RouteDef, scope: PlatformScope | null, event: H3Event): Promise<Response> {
    const request = event.req;
    const params = decodeParams(event.context.params);
    const runtime = gw.runtime;
    const snapshot = runtime.current();
    const ip = peerIp(event, gw);
    let principal: ApiContext['principal'] = { kind: 'master', accountId: 'anonymous', role: 'member' };
    if (route.access !== 'public') {
      ({ principal } = await authenticate(request, runtime, snapshot, ip));
      if (route.access === 'admin' && principal.role !== 'admin') throw forbidden('This endpoint needs an admin account.', 'admin_required');
      if (scope) requireScope(principal, scope);
      await limitManagementCall(runtime, ip, principal);
    }
    const url = new URL(request.url);
    const body = mayHaveBody(route.method, request.headers) ? await readJsonBody(request, snapshot.config.server.body_limit) : undefined;
    if (nestedDeeperThan(body, MAX_BODY_DEPTH)) throw invalidBody(`The request body is nested more than ${MAX_BODY_DEPTH} levels deep.`);
    const result = await route.handler({
      request,
      params,
      query: url.searchParams,
      principal,
      body,
      runtime,
      ip,
    });
    if (result instanceof Response) return result;
    return new Response(JSON.stringify(result), { status: route.status ?? 200, headers: { 'content-type': 'application/json' } });
  }
}

/**
 * The path parameters decoded once: the router hands them over as they stood in the URL, so an id
 * like `meta/llama-3` arrives as `meta%2Fllama-3` and would never match the stored one. A malformed
 * escape is the client's 400, never a 500.
 */
function decodeParams(raw: Record<string, string> | undefined): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw ?? {})) {
    try {
      params[name] = decodeURIComponent(value);
    } catch {
      throw invalidPath();
    }
  }
  return params;
}

/**
 * Whether a request carries a body, from its headers alone: touching `request.body` would wrap
 * the Node stream in a web stream, and cancelling that on an oversized chunked body resets the
 * connection instead of letting the 413 through.
 */
function mayHaveBody(method: string, headers: Headers): boolean {
  if (method !== 'POST' && method !== 'PUT' && method !== 'PATCH') return false;
  const length = headers.get('content-length');
  return length !== null ? length !== '0' : headers.has('transfer-encoding');
}

export { renderError };

export interface StartOptions {
  logger: Logger;
  env?: NodeJS.ProcessEnv;
  watch?: boolean;
  /** The state store to use instead of the one the environment names (tests share one Redis). */
  store?: StateStore;
}

export interface Started {
  gateway: RunningGateway;
  server: Server;
  url: string;
}

/** Assembles the gateway (src/boot) and serves it on `PORT`/`HOST`, else the config's port and host. */
export async function startGateway(options: StartOptions): Promise<Started> {
  const env = options.env ?? process.env;
  const { logger } = options;
  const configFile = resolve(env.GATEWAY_CONFIG ?? 'gateway.yaml');
  // GATEWAY_WATCH=false leaves reloads to SIGHUP (or the management API) only.
  const watch = options.watch ?? env.GATEWAY_WATCH !== 'false';
  const rehearsalCalls = rehearsalCallsFrom(env);
  const preconnectCount = preconnectCountFrom(env);
  const gateway = await createGateway({ configFile, env, logger, watch, store: options.store });
  try {
    const app = createServerApp(gateway, logger);
    // Before listening: readiness (the health path) comes after the first pass through the code.
    await rehearse(gateway, logger, rehearsalCalls);
    // Last before listening, so that the upstream connections are as fresh as can be when the load comes.
    await preconnectUpstreams(gateway.runtime.transport, gateway.runtime.current().config, logger, preconnectCount);
    const { server: serverConfig } = gateway.runtime.current().config;
    const server = serve({
      fetch: app.fetch,
      port: Number(env.PORT ?? serverConfig.port),
      hostname: env.HOST ?? serverConfig.host,
      silent: true,
      gracefulShutdown: false,
      // Cluster workers share the primary's listening socket: srvx binds exclusively unless told.
      reusePort: cluster.isWorker,
    });
    // Requests Node's parser refuses never reach `app`: answered in the error shape there.
    if (server.node?.server instanceof NodeHttpServer) answerClientErrors(server.node.server);
    await server.ready();
    const url = server.url!.replace(/\/$/, '');
    logger.info('gateway listening', { url, config: configFile, store: gateway.runtime.store.kind });
    return { gateway, server, url };
  } catch (error) {
    await gateway.close();
    throw error;
  }
}
