/**
 * `GET /metrics`: Prometheus text format. Configured under `metrics:` (read per request, so a
 * reload applies): `enabled: false` hides the route (404); with `token` set a scraper must send
 * `Authorization: Bearer <token>` (401 otherwise); without one it is open.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { bearerToken } from '../../auth/credentials.ts';
import type { MetricsService } from './service.ts';
import { invalidMetricsToken, routeNotFound } from '../../kernel/errors.ts';
import { defineRoutes } from '../../http/route.ts';

const digest = (s: string) => createHash('sha256').update(s).digest();

export const metricsRoutes = (service: MetricsService) =>
  defineRoutes([
  {
    method: 'GET',
    path: '/metrics',
    access: 'public',
    async handler({ runtime, request }) {
      const config = runtime.current().config.metrics;
      if (!config.enabled) throw routeNotFound('GET', '/metrics');
      if (config.token) {
        const sent = bearerToken(request);
        if (!sent || !timingSafeEqual(digest(sent), digest(config.token))) {
          throw invalidMetricsToken();
        }
      }
      const { body, contentType } = await service.render();
      return new Response(body, { headers: { 'content-type': contentType } });
    },
  },
]);
