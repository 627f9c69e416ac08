/**
 * The `custom` adapter: the compat wire format at a configurable path (`provider.path`, default
 * `/chat/completions`, `{model}` replaced by the upstream model name) with the provider's extra
 * headers. A custom provider naming `adapter:` is served by a plugin adapter instead (index.ts).
 */
import type { ProviderAdapter, Target, UpstreamRequest } from './types.ts';
import { bearerHeaders, openaiAdapter, openaiBody } from './openai.ts';
import { trimSlash } from './shared.ts';

export const DEFAULT_CUSTOM_PATH = '/chat/completions';

export function customUrl(target: Target): string {
  const template = target.provider.path ?? DEFAULT_CUSTOM_PATH;
  const path = template.replaceAll('{model}', encodeURIComponent(target.upstreamModel));
  return trimSlash(target.provider.endpoint) + (path.startsWith('/') || path.startsWith('?') ? path : `/${path}`);
}

export const customAdapter: ProviderAdapter = {
  ...openaiAdapter,
  type: 'custom',
  // Its path template names a chat endpoint; where its embeddings live is not configured.
  embeddings: undefined,
  buildRequest(request, target, { stream }): UpstreamRequest {
    return {
      url: customUrl(target),
      // Bearer auth when an api_key is configured; configured headers are always added.
      headers: bearerHeaders(target),
      body: JSON.stringify(openaiBody(request, target, stream)),
    };
  },
};
