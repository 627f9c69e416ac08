/**
 * The `vendor_c` adapter: generateContent (`{endpoint}/v1beta/models/{model}:generateContent`,
 * streams via `:streamGenerateContent?alt=sse`). Translation lives in gemini-request.ts,
 * gemini-response.ts and gemini-error.ts.
 */
import type { ProviderAdapter, UpstreamRequest } from './types.ts';
import { geminiBody } from './gemini-request.ts';
import { createGeminiTranslator, parseGeminiResponse } from './gemini-response.ts';
import { parseGeminiError } from './gemini-error.ts';
import { jsonHeaders, trimSlash } from './shared.ts';
import { geminiEmbeddings, modelResource } from './gemini-embeddings.ts';
import { nativeBodyFor } from './native.ts';
import type { ChatRequest } from './openai-types.ts';

export { modelResource };

export const geminiAdapter: ProviderAdapter = {
  type: 'vendor_c',
  // A trailing assistant message becomes a trailing `model` turn, which the model continues.
  supportsPrefix: true,
  buildRequest(request, target, { stream }): UpstreamRequest {
    const method = stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
    return {
      url: `${trimSlash(target.provider.endpoint)}/v1beta/${modelResource(target.upstreamModel)}:${method}`,
      headers: jsonHeaders(target, { 'x-goog-api-key': target.provider.api_key ?? '' }),
      body: JSON.stringify(nativeBodyFor(request, 'vendor_c') ? nativeBody(request) : geminiBody(request, target)),
    };
  },
  parseResponse: parseGeminiResponse,
  createStreamTranslator: createGeminiTranslator,
  parseError: parseGeminiError,
  embeddings: geminiEmbeddings,
};

/**
 * A generateContent client's own body (native.ts), with what the gateway decided for it on the
 * chat request and the client left out: a default completion limit, the account's temperature.
 */
function nativeBody(request: ChatRequest): Record<string, unknown> {
  const body = nativeBodyFor(request, 'vendor_c')!;
  const config = { ...(body.generationConfig as Record<string, unknown> | undefined) };
  const limit = request.max_completion_tokens ?? request.max_tokens;
  if (config.maxOutputTokens === undefined && typeof limit === 'number') config.maxOutputTokens = limit;
  if (config.temperature === undefined && typeof request.temperature === 'number') config.temperature = request.temperature;
  return { ...body, generationConfig: config };
}

export { geminiBody, splitToolCallId, SIGNATURE_MARK } from './gemini-request.ts';
export { mapFinishReason, mapUsage } from './gemini-response.ts';
export type { GeminiErrorInfo } from './gemini-error.ts';
