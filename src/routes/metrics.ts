/**
 * `GET /metrics`: Prometheus text format. Configured under `metrics:` (read per request, so a
 * reload applies): `enabled: false` hides the route (404); with `token` set a scraper must send
 * `Authorization: Bearer <token>` (401 otherwise); without one it is open.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { bearerToken } from '../auth/credentials.ts';
import type { MetricsService } from '../metrics/service.ts';
import { GatewayError, routeNotFound } from '../pipeline/errors.ts';
import { defineRoutes } from './types.ts';

const digest = (s: string) => createHash('sha256').update(s).digest();

export const metricsRoutes = defineRoutes([
  {
    method: 'GET',
    path: '/metrics',
    access: 'public',
    async handler({ runtime, request }) {
      const config = runtime.snapshot.config.metrics;
      const service = runtime.services.metrics as MetricsService | undefined;
      if (!config.enabled || !service) throw routeNotFound('GET', '/metrics');
      if (config.token) {
        const sent = bearerToken(request);
        if (!sent || !timingSafeEqual(digest(sent), digest(config.token))) {
          throw new GatewayError(401, 'authentication_error', 'Metrics need Authorization: Bearer <metrics token>.', {
            code: 'invalid_metrics_token',
            headers: { 'www-authenticate': 'Bearer realm="metrics"' },
          });
        }
      }
      const { body, contentType } = await service.render();
      return new Response(body, { headers: { 'content-type': contentType } });
    },
  },
]);
