/**
 * The generateContent interface (Google's GenAI SDK): POST /api/v1beta/models/{model}:generateContent,
 * :streamGenerateContent and :countTokens, on the same pipeline as chat.
 */
import type { FeatureContext, Installed } from '../../http/feature.ts';
import { MODELS_PREFIX } from './request.ts';
import { handleGenerate } from './routes.ts';

export function installGenerateContent({ gateway, logger }: FeatureContext): Installed {
  return {
    // One catch-all: the model may hold slashes and the method follows a colon (`{model}:generateContent`).
    inference: [{ path: `${MODELS_PREFIX}**`, handle: (request, ip) => handleGenerate(gateway, logger, request, ip) }],
  };
}

export { generateRenderer } from './renderer.ts';
export { generateToChat } from './to-chat.ts';
