/** Statistics: usage, cost and model figures over the call log's rollups, and their export. */
import type { FeatureContext, Installed } from '../../http/feature.ts';
import type { LogService } from '../logs/service.ts';
import { statisticsRoutes } from './routes.ts';

export function installStatistics(_ctx: FeatureContext, logs: LogService): Installed {
  return { routes: statisticsRoutes(logs.store) };
}
