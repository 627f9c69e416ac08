/**
 * Embeddings over generateContent's format (vendor_c): one input is `:embedContent`, several
 * are `:batchEmbedContents` (one request per input, in order). `task_type` becomes `taskType`
 * and `dimensions` `outputDimensionality`. The format takes text only, and reports no token
 * usage on the public API, so usage is estimated from the text (as for a cut stream).
 */
import { estimateTokens } from '../kernel/estimate-tokens.ts';
import { badEmbeddingsBody, inputList, type EmbeddingsRequest, type EmbeddingsResponse, type EmbeddingsWire } from './embeddings-types.ts';
import { jsonHeaders, trimSlash } from './shared.ts';
import { UpstreamStreamError, type Target } from './types.ts';
import { GatewayError } from '../kernel/errors.ts';

/** `gemini-2.5-flash` → `models/gemini-2.5-flash`; a full resource name (`tunedModels/x`) stays. */
export const modelResource = (model: string) => (model.includes('/') ? model : `models/${encodeURIComponent(model)}`);

interface GeminiEmbedRequest {
  model: string;
  content: { parts: Array<{ text: string }> };
  taskType?: string;
  outputDimensionality?: number;
}

function texts(request: EmbeddingsRequest): string[] {
  return inputList(request.input).map((item) => {
    if (typeof item === 'string') return item;
    // A request only this upstream format cannot take: refused before any call, so a fallback
    // whose format takes token ids is tried instead (try-targets.ts).
    throw new GatewayError(400, 'invalid_request_error', 'This model takes text input only: send `input` as a string or an array of strings, not token ids.', {
      code: 'unsupported_input',
      param: 'input',
    });
  });
}

function embedRequest(text: string, request: EmbeddingsRequest, target: Target): GeminiEmbedRequest {
  const one: GeminiEmbedRequest = { model: modelResource(target.upstreamModel), content: { parts: [{ text }] } };
  if (request.task_type) one.taskType = request.task_type;
  if (request.dimensions !== undefined) one.outputDimensionality = request.dimensions;
  return one;
}

function vectorsOf(body: unknown): number[][] {
  const answer = body as { embedding?: { values?: number[] }; embeddings?: Array<{ values?: number[] }> };
  const list = answer?.embeddings ?? (answer?.embedding ? [answer.embedding] : undefined);
  if (!Array.isArray(list) || list.some((item) => !Array.isArray(item?.values))) {
    const info = badEmbeddingsBody('no embedding values');
    throw new UpstreamStreamError(info.message, info);
  }
  return list.map((item) => item.values!);
}

export function parseGeminiEmbeddings(body: unknown, request: EmbeddingsRequest, target: Target): EmbeddingsResponse {
  const vectors = vectorsOf(body);
  const reported = (body as { usageMetadata?: { promptTokenCount?: number } }).usageMetadata?.promptTokenCount;
  const prompt = reported ?? texts(request).reduce((sum, text) => sum + estimateTokens(text), 0);
  return {
    object: 'list',
    data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
    model: target.requestedAs,
    usage: { prompt_tokens: prompt, total_tokens: prompt },
  };
}

export const geminiEmbeddings: EmbeddingsWire = {
  buildRequest(request, target) {
    const inputs = texts(request);
    const base = `${trimSlash(target.provider.endpoint)}/v1beta/${modelResource(target.upstreamModel)}`;
    const headers = jsonHeaders(target, { 'x-goog-api-key': target.provider.api_key ?? '' });
    // A single string keeps the simpler call; a list (even of one) is a batch, like the client sent.
    if (typeof request.input === 'string') {
      const { content, taskType, outputDimensionality } = embedRequest(inputs[0]!, request, target);
      return { url: `${base}:embedContent`, headers, body: JSON.stringify({ content, taskType, outputDimensionality }) };
    }
    const requests = inputs.map((text) => embedRequest(text, request, target));
    return { url: `${base}:batchEmbedContents`, headers, body: JSON.stringify({ requests }) };
  },
  parseResponse: parseGeminiEmbeddings,
};
