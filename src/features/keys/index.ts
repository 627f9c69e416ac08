/** API keys: `/v1/api-keys`, each change written back to gateway.yaml (the key itself only hashed). */
import type { FeatureContext, Installed } from '../../http/feature.ts';
import { apiKeyRoutes } from './routes.ts';

export function installKeys({ gateway }: FeatureContext): Installed {
  return { routes: apiKeyRoutes(gateway.writer) };
}
