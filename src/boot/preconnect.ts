/**
 * Before the gateway says it is ready (issue 37): a few connections opened to the upstream of
 * every model's providers (src/providers/warm-sockets.ts), so that the first requests of a fresh
 * process find them open instead of each opening its own, with its TCP and TLS handshakes on the
 * request's clock. Bare connections: no request reaches an upstream. An upstream that cannot be
 * reached costs nothing but its warmth, and the start never waits longer than WAIT_MS for them.
 */
import type { GatewayConfig } from '../config/types.ts';
import type { Logger } from '../kernel/logger.ts';
import type { Transport } from '../providers/transport.ts';

/** Connections opened ahead per upstream origin; GATEWAY_UPSTREAM_PRECONNECT=0 turns it off. */
export const DEFAULT_PRECONNECT = 4;
/** The start never waits longer than this for the connections (those still connecting join later). */
const WAIT_MS = 1_000;

/** `GATEWAY_UPSTREAM_PRECONNECT` (a whole number 0..64, default 4); anything else stops the start. */
export function preconnectCountFrom(env: NodeJS.ProcessEnv): number {
  const raw = env.GATEWAY_UPSTREAM_PRECONNECT;
  if (raw === undefined || raw === '') return DEFAULT_PRECONNECT;
  const count = Number(raw);
  if (!Number.isInteger(count) || count < 0 || count > 64) throw new Error(`GATEWAY_UPSTREAM_PRECONNECT must be a whole number from 0 to 64, not "${raw}".`);
  return count;
}

export interface UpstreamOrigin {
  origin: string;
  /** The connect timeout its calls use: it picks the pool they go through (transport.ts). */
  connectTimeoutMs: number;
}

/** The origins the active models' calls go to, each with the connect timeout routing gives them. */
export function upstreamOrigins(config: GatewayConfig): UpstreamOrigin[] {
  const providers = new Map(config.providers.filter((p) => p.status === 'active').map((p) => [p.id, p]));
  const found = new Map<string, UpstreamOrigin>();
  for (const model of config.models) {
    if (model.status !== 'active') continue;
    for (const providerId of [model.provider, ...(model.deployments ?? []).map((d) => d.provider)]) {
      const provider = providers.get(providerId);
      if (!provider) continue;
      // As routing/resolve.ts and routing/timeouts.ts resolve them for a call.
      const endpoint = model.endpoint && providerId === model.provider ? model.endpoint : provider.endpoint;
      const connectTimeoutMs = Object.assign({}, config.timeouts, provider.timeouts, model.timeouts).connect;
      const url = URL.canParse(endpoint) ? new URL(endpoint) : undefined;
      if (url?.protocol !== 'http:' && url?.protocol !== 'https:') continue;
      found.set(`${url.origin} ${connectTimeoutMs}`, { origin: url.origin, connectTimeoutMs });
    }
  }
  return [...found.values()];
}

/** Opens `count` connections to each upstream origin; resolves with how many opened in time (never rejects). */
export async function preconnectUpstreams(transport: Transport, config: GatewayConfig, logger: Logger, count: number): Promise<number> {
  if (count <= 0 || !transport.preconnect) return 0;
  const origins = upstreamOrigins(config);
  if (!origins.length) return 0;
  const started = Date.now();
  let opened = 0;
  // One origin at a time, and one connection before the others: a host that does not resolve
  // holds a libuv thread for the resolver's timeout (seconds), and password hashing, the file
  // system and DNS share those few threads. Only once one connection opened do the rest follow.
  const all = (async () => {
    for (const { origin, connectTimeoutMs } of origins) {
      const first = await transport.preconnect!(origin, connectTimeoutMs, 1).catch(() => 0);
      opened += first;
      if (first && count > 1) opened += await transport.preconnect!(origin, connectTimeoutMs, count - 1).catch(() => 0);
    }
  })();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([all, new Promise((resolve) => (timer = setTimeout(resolve, WAIT_MS)))]);
  clearTimeout(timer);
  logger.info('upstream connections opened ahead', { origins: origins.length, opened, ms: Date.now() - started });
  return opened;
}
