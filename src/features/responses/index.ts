/**
 * The responses interface (spec 4.11, 2.10): POST /api/v1/responses through the pipeline (its
 * answers rendered in the responses shape), and GET of a stored response.
 */
import type { FeatureContext, Installed } from '../../http/feature.ts';
import { handleResponses, RESPONSES_PATH, responsesRoutes } from './routes.ts';

export function installResponses({ gateway, logger }: FeatureContext): Installed {
  return {
    routes: responsesRoutes,
    inference: [{ path: RESPONSES_PATH, handle: (request, ip) => handleResponses(gateway, logger, request, ip) }],
  };
}

export { responsesToChat } from './to-chat.ts';
export { responsesRenderer } from './renderer.ts';
