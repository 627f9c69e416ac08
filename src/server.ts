/**
 * The HTTP shell (h3 v2): inference and management routes, the OpenAI-shaped error boundary,
 * 404 for unknown paths and 405 for a known path with the wrong method.
 */
import { H3, type H3Event } from 'h3';
import { bearerToken, resolveCredential } from './auth/credentials.ts';
import type { Gateway } from './gateway.ts';
import { requestIp } from './http/client-ip.ts';
import { renderError, safe } from './http/handle.ts';
import { MAX_BODY_DEPTH, nestedDeeperThan } from './http/json-depth.ts';
import { readJsonBody } from './http/read-body.ts';
import { errorResponse, forbidden, invalidBody, invalidPath, invalidApiKey, methodNotAllowed, missingApiKey, routeNotFound } from './pipeline/errors.ts';
import type { Logger } from './pipeline/types.ts';
import { chatBody, embeddingsBody, handleInference } from './routes/inference.ts';
import { systemRoutes } from './routes/system.ts';
import type { ApiContext, RouteDef } from './routes/types.ts';
import { enforceIpAllowList, loadSettings } from './auth/account-policy.ts';
import { requireScope, scopeOf } from './auth/route-scopes.ts';
import { limitManagementCall } from './http/request-limit.ts';
import type { PlatformScope } from './oauth/scopes.ts';

export interface ServerOptions {
  /** Extra management routes (keys, admin resources, logs, statistics, settings...). */
  routes?: RouteDef[];
  /** Extra inference endpoints (e.g. the responses interface): POST handlers given the client IP. */
  inference?: Array<{ path: string; handle(request: Request, ip: string): Promise<Response> }>;
  /** Mount raw handlers (OAuth) before the fallbacks. */
  mount?: (app: H3) => void;
}

const peerIp = (event: H3Event, gateway: Gateway) => requestIp(event.req, gateway.current.snapshot.config.server.trusted_proxies);

/** Compile an h3 path pattern to a regex, for the 405 check. */
const patternOf = (path: string) => new RegExp(`^${path.replace(/:[^/]+/g, '[^/]+').replace(/\*\*$/, '.*')}/?$`);

export function createServerApp(gateway: Gateway, logger: Logger, options: ServerOptions = {}): H3 {
  const app = new H3({
    // Only errors h3 raises itself reach here (handlers run inside `safe`): a path with malformed
    // percent-encoding is refused before routing.
    onError: (error) => (error.status === 400 ? errorResponse(invalidPath()) : renderError(error, logger)),
  });
  const known: Array<{ pattern: RegExp; method: string }> = [];
  const chat = { path: '/api/v1/chat/completions', handle: (request: Request, ip: string) => handleInference(gateway, request, ip, 'chat', chatBody) };

  const embeddings = { path: '/api/v1/embeddings', handle: (request: Request, ip: string) => handleInference(gateway, request, ip, 'embeddings', embeddingsBody) };

  for (const route of [chat, embeddings, ...(options.inference ?? [])]) {
    known.push({ pattern: patternOf(route.path), method: 'POST' });
    app.post(route.path, safe(logger, (event: H3Event) => route.handle(event.req, peerIp(event, gateway))));
  }

  for (const route of [...systemRoutes, ...(options.routes ?? [])]) {
    known.push({ pattern: patternOf(route.path), method: route.method });
    // Looked up once here: a route without a declared scope stops the start, not a request.
    const scope = route.access === 'public' ? null : scopeOf(route.method, route.path);
    app.on(route.method, route.path, safe(logger, (event: H3Event) => runRoute(gateway, route, scope, event)));
  }

  options.mount?.(app);

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

  async function runRoute(gw: Gateway, route: RouteDef, scope: PlatformScope | null, event: H3Event): Promise<Response> {
    const request = event.req;
    const runtime = gw.runtime;
    const snapshot = gw.current.snapshot;
    const ip = peerIp(event, gw);
    let principal: ApiContext['principal'] = { kind: 'master', accountId: 'anonymous', role: 'member' };
    if (route.access !== 'public') {
      const token = bearerToken(request);
      if (!token) throw missingApiKey();
      const resolved = await resolveCredential(token, runtime, snapshot);
      if (!resolved) throw invalidApiKey();
      principal = resolved;
      enforceIpAllowList(principal, await loadSettings(runtime, snapshot, principal), ip);
      if (route.access === 'admin' && principal.role !== 'admin') throw forbidden('This endpoint needs an admin account.', 'admin_required');
      if (scope) requireScope(principal, scope);
      await limitManagementCall(runtime, ip, principal);
    }
    const url = new URL(request.url);
    const body = mayHaveBody(route.method, request.headers) ? await readJsonBody(request, snapshot.config.server.body_limit) : undefined;
    if (nestedDeeperThan(body, MAX_BODY_DEPTH)) throw invalidBody(`The request body is nested more than ${MAX_BODY_DEPTH} levels deep.`);
    const result = await route.handler({
      request,
      params: (event.context.params ?? {}) as Record<string, string>,
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
