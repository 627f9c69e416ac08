/**
 * The `vendor_b` adapter: the Messages API (`POST {endpoint}/v1/messages`). Request translation
 * lives in anthropic-request.ts, answers in anthropic-response.ts, errors in anthropic-error.ts.
 */
import type { ProviderAdapter, UpstreamRequest } from './types.ts';
import { anthropicBody } from './anthropic-request.ts';
import { createAnthropicTranslator, parseAnthropicResponse } from './anthropic-response.ts';
import { parseAnthropicError } from './anthropic-error.ts';
import { jsonHeaders, trimSlash } from './shared.ts';
import { nativeFor, type NativeRequest } from './native.ts';

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
    const native = nativeFor(request, 'vendor_b');
    if (native) forwardDialectHeaders(headers, native);
    headers['anthropic-version'] ??= ANTHROPIC_VERSION;
    return {
      url: `${trimSlash(target.provider.endpoint)}/v1/messages`,
      headers,
      body: JSON.stringify(native ? nativeBody(native, target.upstreamModel, options.stream) : anthropicBody(request, target, options.stream, options)),
    };
  },
  parseResponse: parseAnthropicResponse,
  createStreamTranslator: createAnthropicTranslator,
  parseError: parseAnthropicError,
};

/**
 * A Messages API client's own body (the Messages ingress): sent as it came, only the model renamed
 * and `stream` set as the attempt reads it, so nothing is lost (cache_control, signatures, citations).
 */
function nativeBody(native: NativeRequest, upstreamModel: string, stream: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = Object.assign({}, native.body, { model: upstreamModel });
  if (stream) body.stream = true;
  else delete body.stream;
  return body;
}

/** The client's `anthropic-version` wins; its `anthropic-beta` list joins any the provider config sets. */
function forwardDialectHeaders(headers: Record<string, string>, native: NativeRequest) {
  const version = native.headers['anthropic-version'];
  if (version) headers['anthropic-version'] = version;
  const beta = native.headers['anthropic-beta'];
  if (beta) headers['anthropic-beta'] = headers['anthropic-beta'] ? `${headers['anthropic-beta']},${beta}` : beta;
}

export { anthropicBody, effortForThinkingBudget } from './anthropic-request.ts';
export { mapStopReason, mapUsage, stopReasonFor, usageFor } from './anthropic-response.ts';
