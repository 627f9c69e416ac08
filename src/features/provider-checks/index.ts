/**
 * Provider checks for admins: a one-call test of a provider and its health (breaker state and
 * recent failed calls). Admin-only like the rest of /v1/admin.
 */
import type { FeatureContext, Installed } from '../../http/feature.ts';
import type { LogService } from '../logs/service.ts';
import { providerHealth } from './health.ts';
import { testProvider } from './probe-call.ts';

export function installProviderChecks(_ctx: FeatureContext, logs: LogService): Installed {
  return {
    routes: [
      { method: 'POST', path: '/v1/admin/providers/:id/test', access: 'admin', handler: ({ runtime, params, body }) => testProvider(runtime, params.id!, body) },
      { method: 'GET', path: '/v1/admin/providers/:id/health', access: 'admin', handler: ({ runtime, params }) => providerHealth(runtime, logs.store, params.id!) },
    ],
  };
}
