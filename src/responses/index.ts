/**
 * The responses interface feature (spec 4.11, 2.10): its renderer, POST route and GET route,
 * installed by features.ts.
 */
import type { Gateway } from '../gateway.ts';
import { registerRenderer } from '../pipeline/render.ts';
import type { Logger } from '../pipeline/types.ts';
import type { RouteDef } from '../routes/types.ts';
import { responsesRenderer } from './renderer.ts';
import { handleResponses, RESPONSES_PATH, responsesRoutes } from './routes.ts';

export interface ResponsesFeature {
  routes: RouteDef[];
  inference: { path: string; handle(request: Request, ip: string): Promise<Response> };
}

/** Register the renderer and return the routes to install. */
export function responsesFeature(gateway: Gateway, logger: Logger): ResponsesFeature {
  registerRenderer('responses', responsesRenderer);
  return {
    routes: responsesRoutes,
    inference: { path: RESPONSES_PATH, handle: (request, ip) => handleResponses(gateway, logger, request, ip) },
  };
}

export { responsesToChat } from './to-chat.ts';
export { responsesRenderer } from './renderer.ts';
