/**
 * Admin resources: `/v1/admin/{providers,models,groups,guardrails,users}`, each change written back to
 * gateway.yaml through the config writer (src/config/write).
 */
import type { FeatureContext, Installed } from '../../http/feature.ts';
import { groupRoutes } from './group-routes.ts';
import { guardrailRoutes } from './guardrail-routes.ts';
import { modelRoutes } from './model-routes.ts';
import { providerRoutes } from './provider-routes.ts';
import { userRoutes } from './user-routes.ts';

export function installAdmin({ gateway }: FeatureContext): Installed {
  const { writer } = gateway;
  return { routes: [...providerRoutes(writer), ...modelRoutes(writer), ...groupRoutes(writer), ...guardrailRoutes(writer), ...userRoutes(writer)] };
}
