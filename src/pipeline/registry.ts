/**
 * The built-in plugins by name. Custom plugins are loaded from the module named in
 * `pipeline:` and are never added here.
 */
import auth from '../plugins/auth.ts';
import cache from '../plugins/cache.ts';
import concurrency from '../plugins/concurrency.ts';
import log from '../plugins/log.ts';
import permission from '../plugins/permission.ts';
import rateLimit from '../plugins/rate-limit.ts';
import route from '../plugins/route.ts';
import semanticCache from '../plugins/semantic-cache.ts';
import upstream from '../plugins/upstream.ts';
import type { PluginDefinition } from './types.ts';

export const builtinPlugins: ReadonlyMap<string, PluginDefinition<any>> = new Map(
  [log, auth, permission, rateLimit, cache, semanticCache, route, concurrency, upstream].map((plugin) => [plugin.name, plugin as PluginDefinition<any>]),
);

// rate-limit runs after route: provider quotas need the routed provider, checked in the same
// atomic store call as the rates. concurrency holds a slot only for requests that reach upstream.
export const DEFAULT_PIPELINE = ['log', 'auth', 'permission', 'route', 'rate-limit', 'cache', 'concurrency', 'upstream'];
