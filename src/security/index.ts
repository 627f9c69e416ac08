/**
 * The security verification feature: the service (as `runtime.services.security`) and its routes.
 */
import type { Gateway } from '../gateway.ts';
import type { Logger } from '../pipeline/types.ts';
import { securityRoutes } from '../routes/security.ts';
import type { RouteDef } from '../routes/types.ts';
import { createSecurityService } from './service.ts';

/**
 * Installs the service and returns the routes for features.ts.
 * @example routes.push(...installSecurity(gateway, logger));
 */
export function installSecurity(gateway: Gateway, logger: Logger): RouteDef[] {
  const service = createSecurityService(gateway.runtime, logger);
  (gateway.runtime.services as Record<string, unknown>).security = service;
  return securityRoutes(service);
}
