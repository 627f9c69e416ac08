/** System information: health (with every feature's probes), status and the live configuration. */
import type { Installed } from '../../http/feature.ts';
import { systemRoutes } from './routes.ts';

export function installSystem(): Installed {
  return { routes: systemRoutes };
}
