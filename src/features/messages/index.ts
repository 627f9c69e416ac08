/**
 * The Messages API interface (Anthropic's SDK and coding agents): POST /api/v1/messages through
 * the pipeline, its answers and errors in the Messages API's shapes, and POST
 * /api/v1/messages/count_tokens.
 */
import type { FeatureContext, Installed } from '../../http/feature.ts';
import { COUNT_TOKENS_PATH, handleCountTokens } from './count-tokens.ts';
import { handleMessages, MESSAGES_PATH } from './routes.ts';

export function installMessages({ gateway, logger }: FeatureContext): Installed {
  return {
    inference: [
      { path: MESSAGES_PATH, handle: (request, ip) => handleMessages(gateway, logger, request, ip) },
      { path: COUNT_TOKENS_PATH, handle: (request, ip) => handleCountTokens(gateway, logger, request, ip) },
    ],
  };
}

export { messagesRenderer } from './renderer.ts';
