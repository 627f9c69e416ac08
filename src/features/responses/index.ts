/**
 * The responses interface (spec 4.11, 2.10): POST /api/v1/responses through the pipeline (its
 * answers rendered in the responses shape), and GET, DELETE and cancel of a stored response.
 */
import type { FeatureContext, Installed } from '../../http/feature.ts';
import type { BackgroundRuns } from './background.ts';
import { handleResponses, RESPONSES_PATH, responsesRoutes } from './routes.ts';

export function installResponses({ gateway, logger }: FeatureContext): Installed {
  const running: BackgroundRuns = new Map();
  return {
    routes: responsesRoutes(running),
    inference: [{ path: RESPONSES_PATH, handle: (request, ip) => handleResponses(gateway, logger, running, request, ip) }],
  };
}

export { responsesToChat } from './to-chat.ts';
export { responsesRenderer } from './renderer.ts';
