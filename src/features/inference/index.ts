/** Chat completions and embeddings: the inference endpoints, each body run through the pipeline. */
import type { FeatureContext, Installed } from '../../http/feature.ts';
import { chatBody, embeddingsBody, handleInference } from './routes.ts';

export function installInference({ gateway }: FeatureContext): Installed {
  return {
    inference: [
      { path: '/api/v1/chat/completions', handle: (request, ip) => handleInference(gateway, request, ip, 'chat', chatBody) },
      { path: '/api/v1/embeddings', handle: (request, ip) => handleInference(gateway, request, ip, 'embeddings', embeddingsBody) },
    ],
  };
}
