/** Account security: one-time codes, two-factor, login alerts and trusted devices, and `/v1/security/*`. */
import type { FeatureContext, Installed } from '../../http/feature.ts';
import { securityRoutes } from './routes.ts';
import { createSecurityService, type SecurityService } from './service.ts';

declare module '../../pipeline/services.ts' {
  interface Services {
    security?: SecurityService;
  }
}

export function installSecurity({ runtime, logger }: FeatureContext): Installed & { service: SecurityService } {
  const service = createSecurityService(runtime, logger);
  return { service, services: { security: service }, routes: securityRoutes(service, logger) };
}
