/**
 * System information (spec 4.8, 2.9): health without auth, with real component checks and
 * their latencies; status with version, uptime and the last reload; the live configuration.
 */
import { basename } from 'node:path';
import type { Runtime } from '../../pipeline/runtime.ts';
import type { ComponentStatus } from '../../pipeline/services.ts';
import { configWritability } from '../../config/write/writability.ts';
import { defineRoutes, json } from '../../http/route.ts';
import { REQUIRED_MAX_TOKENS_DEFAULT } from '../../providers/types.ts';
import { isAdmin, type Principal } from '../../pipeline/principal.ts';


const CHECK_TIMEOUT_MS = 2000;

async function probe(check: () => Promise<{ latency: number; status?: ComponentStatus; detail?: Record<string, unknown> }>) {
  const started = performance.now();
  try {
    const result = await Promise.race([
      check(),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), CHECK_TIMEOUT_MS).unref()),
    ]);
    return { status: result.status ?? ('operational' as ComponentStatus), latency: Math.round(result.latency), detail: result.detail };
  } catch {
    return { status: 'major_outage' as ComponentStatus, latency: Math.round(performance.now() - started), detail: undefined };
  }
}

/** How long a task queued now waits for the event loop (ms): the API's own responsiveness. */
function eventLoopLag(): Promise<number> {
  const queued = performance.now();
  return new Promise((resolve) => setImmediate(() => resolve(performance.now() - queued)));
}

export async function health(runtime: Runtime) {
  const probes = runtime.services.healthProbes;
  const cacheProbe = async () => {
    let latency: number;
    try {
      latency = await runtime.store.ping();
    } catch {
      // Shared store away: requests are served on local state (fail-open), so degraded, not an outage.
      return { latency: 0, status: 'degraded' as ComponentStatus };
    }
    return { latency, status: (runtime.store.healthy ? 'operational' : 'degraded') as ComponentStatus };
  };
  const byName = new Map(probes.map((p) => [p.name, p]));
  const [api, database, cache, queue] = await Promise.all([
    eventLoopLag(),
    byName.has('database') ? probe(() => byName.get('database')!.check()) : Promise.resolve({ status: 'operational' as ComponentStatus, latency: 0, detail: { kind: 'none' } }),
    probe(cacheProbe),
    byName.has('queue') ? probe(() => byName.get('queue')!.check()) : Promise.resolve({ status: 'operational' as ComponentStatus, latency: 0, detail: undefined }),
  ]);
  // A busy event loop is what makes every answer slow: 50 ms of lag degrades the api component.
  const apiStatus: ComponentStatus = api > 50 ? 'degraded' : 'operational';
  const components = { api: apiStatus, database: database.status, cache: cache.status, queue: queue.status };
  const worst = Object.values(components).some((s) => s === 'major_outage') ? 'unhealthy' : Object.values(components).some((s) => s !== 'operational') ? 'degraded' : 'healthy';
  return {
    status: worst,
    components,
    latency: { api: Math.round(api), database: database.latency, cache: cache.latency },
    details: { store: runtime.store.kind, database: database.detail, queue: queue.detail },
  };
}

/**
 * The status; a reload's error text names the file and places in it, which only admins see: a
 * member learns that a reload failed, and why writes are off without where the file lives.
 */
export async function systemStatus(runtime: Runtime, principal?: Principal) {
  const status = await fullStatus(runtime);
  if (!principal || isAdmin(principal)) return status;
  const { last_reload: reload, management } = status;
  return {
    ...status,
    last_reload: reload && { ...reload, error: reload.error === null ? null : 'The last reload was refused (details for admins).' },
    // The reason stays (a console shows it) without the file's place on the server.
    management: { writable: management.writable, reason: management.reason?.replaceAll(runtime.current().file, basename(runtime.current().file)) ?? null },
  };
}

async function fullStatus(runtime: Runtime) {
  const { system } = runtime.current().config;
  const degraded = !runtime.store.healthy;
  return {
    status: degraded ? 'degraded' : 'operational',
    version: runtime.version,
    uptime: Math.floor((Date.now() - runtime.startedAt) / 1000),
    region: system.region,
    data_residency: system.data_residency,
    config_version: runtime.current().version,
    last_reload: runtime.lastReload(),
    management: await configWritability(runtime),
  };
}

export function systemConfig(runtime: Runtime) {
  const { api, limits, features, models } = runtime.current().config;
  // The longest context any active model serves (a model without one has limits.max_context_length).
  const longest = Math.max(limits.max_context_length, ...models.filter((m) => m.status === 'active').map((m) => m.context_length ?? 0));
  return {
    api: { rate_limit: api.rate_limit, rate_limit_period: api.rate_limit_period, max_concurrent_requests: api.max_concurrent_requests },
    models: {
      max_context_length: longest,
      default_temperature: limits.default_temperature,
      // Unset, the limit in force is the one sent where the wire format requires one.
      default_max_tokens: limits.default_max_tokens ?? REQUIRED_MAX_TOKENS_DEFAULT,
    },
    features: { streaming: features.streaming, function_calling: features.function_calling, vision: features.vision },
  };
}

export const systemRoutes = defineRoutes([
  {
    method: 'GET',
    path: '/v1/system/health',
    access: 'public',
    async handler({ runtime }) {
      // 200 whenever the process serves (CONTRACT): a lost Redis or database degrades, the
      // gateway keeps answering, and `status`/`components` say what is wrong.
      return json(await health(runtime));
    },
  },
  { method: 'GET', path: '/v1/system/status', access: 'key', handler: ({ runtime, principal }) => systemStatus(runtime, principal) },
  { method: 'GET', path: '/v1/system/config', access: 'key', handler: ({ runtime }) => systemConfig(runtime) },
]);
