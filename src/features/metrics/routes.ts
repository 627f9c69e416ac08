/**
 * `GET /metrics`: Prometheus text format. Configured under `metrics:` (read per request, so a
 * reload applies): `enabled: false` hides it (404). Where it is served:
 *  - `port` (or GATEWAY_METRICS_PORT) set: on that port only (metrics-server.ts), which a
 *    NetworkPolicy can open to the monitoring namespace alone; the API port answers 404.
 *  - otherwise on the API port, which every client reaches: only with the bearer `token` (or
 *    GATEWAY_METRICS_TOKEN), or with `public: true`, chosen explicitly; else 403.
 * With a token set, a scraper must send `Authorization: Bearer <token>` on either port (401).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { bearerToken } from '../../auth/credentials.ts';
import type { GatewayConfig } from '../../config/types.ts';
import type { MetricsService } from './service.ts';
import { forbidden, invalidMetricsToken, routeNotFound } from '../../kernel/errors.ts';
import { defineRoutes } from '../../http/route.ts';
import type { Runtime } from '../../pipeline/runtime.ts';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Where the metrics go, from the environment (read once at start). */
export interface MetricsExposure {
  /** The separate metrics port, when there is one. */
  port?: number;
  /** GATEWAY_METRICS_TOKEN: the token when `metrics.token` is unset. */
  envToken?: string;
}

/** The metrics port: GATEWAY_METRICS_PORT, else `metrics.port`; an invalid value stops the start. */
export function metricsExposure(env: NodeJS.ProcessEnv, config: GatewayConfig['metrics']): MetricsExposure {
  const raw = env.GATEWAY_METRICS_PORT?.trim();
  let port = config.port;
  if (raw) {
    port = Number(raw);
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`GATEWAY_METRICS_PORT must be a port number (1-65535), not "${raw}"`);
  }
  return { port, envToken: env.GATEWAY_METRICS_TOKEN?.trim() || undefined };
}

/** The scrape answer on `via` (the API port or the metrics port), or the error to throw. */
export async function scrape(service: MetricsService, runtime: Runtime, exposure: MetricsExposure, request: Request, via: 'api' | 'metrics'): Promise<Response> {
  const config = runtime.current().config.metrics;
  if (!config.enabled || (via === 'api' && exposure.port !== undefined)) throw routeNotFound('GET', '/metrics');
  const token = config.token ?? exposure.envToken;
  if (token) {
    const sent = bearerToken(request);
    if (!sent || !timingSafeEqual(digest(sent), digest(token))) throw invalidMetricsToken();
  } else if (via === 'api' && !config.public) {
    throw forbidden(
      'Metrics are not served to everyone on the API port: set metrics.token (or GATEWAY_METRICS_TOKEN), metrics.port (or GATEWAY_METRICS_PORT), or metrics.public: true.',
      'metrics_not_public',
    );
  }
  const { body, contentType } = await service.render();
  return new Response(body, { headers: { 'content-type': contentType } });
}

export const metricsRoutes = (service: MetricsService, exposure: MetricsExposure) =>
  defineRoutes([
    {
      method: 'GET',
      path: '/metrics',
      access: 'public',
      handler: ({ runtime, request }) => scrape(service, runtime, exposure, request, 'api'),
    },
  ]);
