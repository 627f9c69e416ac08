/**
 * Embeddings over the OpenAI wire format (compat `{endpoint}/embeddings`; vendor_d reuses the
 * body with its deployment URL). The upstream is always asked for floats: the gateway encodes
 * base64 itself, so every format answers alike and the semantic cache can read the vectors.
 */
import { UpstreamStreamError } from './types.ts';
import type { Target, UpstreamRequest } from './types.ts';
import { badEmbeddingsBody, type EmbeddingsRequest, type EmbeddingsResponse, type EmbeddingsWire } from './embeddings-types.ts';
// shared.ts, not openai.ts: openai.ts imports this module.
import { jsonHeaders, trimSlash } from './shared.ts';

/** The JSON body an OpenAI-style upstream gets: the client's fields minus gateway-only ones. */
export function openaiEmbeddingsBody(request: EmbeddingsRequest, target: Target): Record<string, unknown> {
  const body: Record<string, unknown> = { model: target.upstreamModel, input: request.input, encoding_format: 'float' };
  if (request.dimensions !== undefined) body.dimensions = request.dimensions;
  if (request.user !== undefined) body.user = request.user;
  return body;
}

export function parseOpenAIEmbeddings(body: unknown, _request: EmbeddingsRequest, target: Target): EmbeddingsResponse {
  const answer = body as EmbeddingsResponse;
  if (!answer || typeof answer !== 'object' || !Array.isArray(answer.data)) {
    const info = badEmbeddingsBody('no data list');
    throw new UpstreamStreamError(info.message, info);
  }
  const prompt = answer.usage?.prompt_tokens ?? 0;
  return {
    object: 'list',
    data: answer.data.map((item, index) => ({ object: 'embedding', index: item.index ?? index, embedding: item.embedding })),
    model: target.requestedAs,
    usage: { prompt_tokens: prompt, total_tokens: answer.usage?.total_tokens ?? prompt },
  };
}

export const openaiEmbeddings: EmbeddingsWire = {
  buildRequest(request, target): UpstreamRequest {
    return {
      url: `${trimSlash(target.provider.endpoint)}/embeddings`,
      headers: jsonHeaders(target, { authorization: `Bearer ${target.provider.api_key}` }),
      body: JSON.stringify(openaiEmbeddingsBody(request, target)),
    };
  },
  parseResponse: parseOpenAIEmbeddings,
};
