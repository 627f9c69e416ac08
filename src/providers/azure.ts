/**
 * The `vendor_d` adapter: OpenAI chat completions hosted on Azure deployments. The wire format is
 * the compat one (reused from openai.ts); only the URL, the `api-key` header and a few answer
 * quirks differ (see test/fixtures/upstream/azure-openai/CONVENTIONS.md).
 */
import type { ProviderAdapter, Target, UpstreamRequest } from './types.ts';
import { openaiAdapter, openaiBody } from './openai.ts';
import { openaiEmbeddingsBody, parseOpenAIEmbeddings } from './openai-embeddings.ts';
import { jsonHeaders, trimSlash } from './shared.ts';

/** The GA data-plane version used when the provider config names none. */
export const DEFAULT_API_VERSION = '2024-10-21';

/**
 * `{endpoint}/openai/deployments/{deployment}/chat/completions?api-version=...`: the deployment in
 * the path selects the model. `api_version: v1` selects the newer deployment-less API instead,
 * which takes the model from the body and no version parameter.
 */
export function azureUrl(target: Target, operation: 'chat/completions' | 'embeddings' = 'chat/completions'): string {
  const base = `${trimSlash(target.provider.endpoint)}/openai`;
  const version = target.provider.api_version ?? DEFAULT_API_VERSION;
  if (version === 'v1') return `${base}/v1/${operation}`;
  return `${base}/deployments/${encodeURIComponent(target.upstreamModel)}/${operation}?api-version=${encodeURIComponent(version)}`;
}

/**
 * Answers need nothing beyond the compat translation: the leading stream chunk with only
 * `prompt_filter_results` (no choices, no usage) is absorbed there, `content_filter_results`
 * ride along as extra fields, and `finish_reason: content_filter` is already an OpenAI value.
 * Errors are OpenAI-shaped too; the content-filter 400 has `type: null`, which becomes
 * `invalid_request_error` by status while keeping `code: content_filter`.
 */
export const azureAdapter: ProviderAdapter = {
  ...openaiAdapter,
  type: 'vendor_d',
  // Azure's OpenAI deployments answer a trailing assistant message with a new turn.
  supportsPrefix: false,
  prefixStyles: [],
  buildRequest(request, target, { stream }): UpstreamRequest {
    return {
      url: azureUrl(target),
      headers: jsonHeaders(target, { 'api-key': target.provider.api_key ?? '' }),
      body: JSON.stringify(openaiBody(request, target, stream)),
    };
  },
  // `{endpoint}/openai/deployments/{deployment}/embeddings?api-version=...`, the compat body and answer.
  embeddings: {
    buildRequest: (request, target) => ({
      url: azureUrl(target, 'embeddings'),
      headers: jsonHeaders(target, { 'api-key': target.provider.api_key ?? '' }),
      body: JSON.stringify(openaiEmbeddingsBody(request, target)),
    }),
    parseResponse: parseOpenAIEmbeddings,
  },
};
