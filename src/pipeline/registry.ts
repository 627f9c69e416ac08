/**
 * The built-in plugins by name. Custom plugins are loaded from the module named in
 * `pipeline:` and are never added here.
 */
import auth from '../plugins/auth.ts';
import cache from '../plugins/cache.ts';
import log from '../plugins/log.ts';
import permission from '../plugins/permission.ts';
import rateLimit from '../plugins/rate-limit.ts';
import route from '../plugins/route.ts';
import upstream from '../plugins/upstream.ts';
import type { PluginDefinition } from './types.ts';

export const builtinPlugins: ReadonlyMap<string, PluginDefinition<any>> = new Map(
  [log, auth, permission, rateLimit, cache, route, upstream].map((plugin) => [plugin.name, plugin as PluginDefinition<any>]),
);

export const DEFAULT_PIPELINE = ['log', 'auth', 'permission', 'rate-limit', 'cache', 'route', 'upstream'];
