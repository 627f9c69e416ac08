/**
 * The `vendor_b` adapter: the Messages API (`POST {endpoint}/v1/messages`). Request translation
 * lives in anthropic-request.ts, answers in anthropic-response.ts, errors in anthropic-error.ts.
 */
import type { ProviderAdapter, UpstreamRequest } from './types.ts';
import { anthropicBody } from './anthropic-request.ts';
import { createAnthropicTranslator, parseAnthropicResponse } from './anthropic-response.ts';
import { parseAnthropicError } from './anthropic-error.ts';
import { jsonHeaders, trimSlash } from './shared.ts';

/** The API version whose shapes this adapter speaks. */
export const ANTHROPIC_VERSION = '2023-06-01';

export const anthropicAdapter: ProviderAdapter = {
  type: 'vendor_b',
  // A trailing assistant message is sent as-is and the model continues it (prefill).
  supportsPrefix: true,
  // The API requires max_tokens: a request that names none is sent the gateway's default.
  requiresMaxTokens: true,
  buildRequest(request, target, options): UpstreamRequest {
    const headers = jsonHeaders(target, { 'x-api-key': target.provider.api_key ?? '' });
    headers['anthropic-version'] ??= ANTHROPIC_VERSION;
    return {
      url: `${trimSlash(target.provider.endpoint)}/v1/messages`,
      headers,
      body: JSON.stringify(anthropicBody(request, target, options.stream, options)),
    };
  },
  parseResponse: parseAnthropicResponse,
  createStreamTranslator: createAnthropicTranslator,
  parseError: parseAnthropicError,
};

export { anthropicBody } from './anthropic-request.ts';
export { mapStopReason, mapUsage } from './anthropic-response.ts';
