/**
 * Management routes are declared as plain data (method, path, access rule, handler) and mounted
 * by the server, so that handlers never depend on the HTTP framework.
 */
import type { Principal } from '../pipeline/principal.ts';
import type { Runtime } from '../pipeline/runtime.ts';

export interface ApiContext {
  request: Request;
  /** Path parameters, e.g. `{ id }` for `/v1/admin/models/:id`. */
  params: Record<string, string>;
  query: URLSearchParams;
  /** Set unless the route is `access: 'public'`. */
  principal: Principal;
  /** Parsed JSON body for POST/PUT (undefined otherwise). */
  body: unknown;
  runtime: Runtime;
  /** Client address after trusted-proxy resolution. */
  ip: string;
}

export interface RouteDef {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  /** h3 path syntax: `/v1/admin/models/:id`. */
  path: string;
  /**
   * `public`: no auth; `key`: any valid credential; `admin`: an admin principal. The OAuth scope
   * of a non-public route is in src/auth/route-scopes.ts.
   */
  access: 'public' | 'key' | 'admin';
  /** Return a Response, or a JSON-able value sent as 200 (`status` overrides). */
  handler(ctx: ApiContext): Promise<Response | unknown> | Response | unknown;
  status?: number;
}

export const defineRoutes = (routes: RouteDef[]) => routes;

/** JSON answer with a status (e.g. 201 on create). */
export const json = (value: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(value), { status, headers: { 'content-type': 'application/json', ...headers } });
