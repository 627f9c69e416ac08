/**
 * Every route the installed features serve, as data: management routes, inference endpoints and
 * what raw mounts register (OAuth, the console). The OpenAPI document is generated from it, and its
 * test compares the two, so a route cannot ship undocumented nor a documented one linger.
 */
import type { H3 } from 'h3';
import type { Installed } from './feature.ts';
import type { RouteDef } from './route.ts';

export interface RouteEntry {
  /** Upper case; `ALL` for a mount that answers every method (it decides itself). */
  method: string;
  /** h3 syntax: `/v1/admin/models/:id`, `/oauth/**`. */
  path: string;
  /** `inference`: through the pipeline; `mount`: a raw handler. */
  access: RouteDef['access'] | 'inference' | 'mount';
}

const METHODS = new Set(['get', 'post', 'put', 'delete', 'patch', 'head', 'options', 'all']);

/**
 * What `mount` registers, recorded on a stand-in for the h3 app: mounts only register handlers
 * (they are built once at install), so calling one twice is harmless. HEAD next to GET is left
 * out, as for routes (the server adds it wherever GET is).
 */
function mountedRoutes(mount: (app: H3) => void): RouteEntry[] {
  const found: RouteEntry[] = [];
  const record = (method: string, path: unknown) => {
    if (typeof path === 'string' && method !== 'HEAD') found.push({ method, path, access: 'mount' });
  };
  const app = new Proxy({} as H3, {
    get(_target, name) {
      if (name === 'on') return (method: string, path: unknown) => record(method.toUpperCase(), path);
      if (typeof name === 'string' && METHODS.has(name)) return (path: unknown) => record(name.toUpperCase(), path);
      throw new Error(`route table: a mount used app.${String(name)}, which it cannot record`);
    },
  });
  mount(app);
  return found;
}

/** The routes of `features`, in the order the server mounts them. */
export function routeTable(features: readonly Installed[]): RouteEntry[] {
  const table: RouteEntry[] = [];
  for (const feature of features) for (const route of feature.inference ?? []) table.push({ method: 'POST', path: route.path, access: 'inference' });
  for (const feature of features) for (const route of feature.routes ?? []) table.push({ method: route.method, path: route.path, access: route.access });
  for (const feature of features) if (feature.mount) table.push(...mountedRoutes(feature.mount));
  return table;
}

/** `"GET /v1/api-keys/:id"`: how routes are named in the route-scope table and the docs catalog. */
export const routeKey = (route: { method: string; path: string }) => `${route.method} ${route.path}`;
