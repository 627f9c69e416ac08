/** The model list: `GET /api/v1/models` and `/api/v1/models/:id`, what the caller may route to. */
import type { Installed } from '../../http/feature.ts';
import { modelListRoutes } from './routes.ts';

export function installModels(): Installed {
  return { routes: modelListRoutes };
}
