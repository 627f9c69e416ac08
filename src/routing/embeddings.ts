/**
 * Embeddings through the same routing as chat: the targets that can embed (a model config that
 * declares capabilities must list `embeddings`; the provider's wire format must have an
 * embeddings endpoint), tried in turn with retries, fallbacks and the breaker (try-targets.ts).
 * The answer is rendered here: float vectors, or base64 of their float32 bytes when asked.
 */
import type { GatewayContext } from '../pipeline/context.ts';
import { capabilityNotSupported, embeddingsNotSupported } from '../kernel/errors.ts';
import { jsonAnswer } from '../pipeline/render.ts';
import type { EmbeddingsRequest, EmbeddingsResponse } from '../providers/embeddings-types.ts';
import type { Target } from '../providers/types.ts';
import { callEmbeddings } from './call.ts';
import { tryTargets } from './try-targets.ts';

/** The targets that can serve an embeddings request, in order; throws the first reason when none can. */
export function embeddingTargets(ctx: GatewayContext, targets: Target[]): Target[] {
  let refusal: Error | undefined;
  const fitting = targets.filter((target) => {
    const capabilities = target.model?.capabilities;
    if (capabilities?.length && !capabilities.includes('embeddings')) {
      refusal ??= capabilityNotSupported(`Model '${target.requestedAs}' does not support embeddings.`, 'model');
      return false;
    }
    if (!ctx.runtime.adapters.get(target.provider).embeddings) {
      refusal ??= embeddingsNotSupported(`Model '${target.requestedAs}' is served by a '${target.provider.type}' upstream, whose format has no embeddings.`);
      return false;
    }
    return true;
  });
  if (!fitting.length && refusal) throw refusal;
  return fitting;
}

/** Call the upstreams for embeddings; floats inside the gateway (the semantic cache reads them). */
export async function fetchEmbeddings(ctx: GatewayContext, now: () => number): Promise<EmbeddingsResponse> {
  const { value } = await tryTargets(ctx, callEmbeddings, { targets: ctx.targets, request: ctx.body }, now);
  return value;
}

/** Little-endian float32 bytes in base64: what OpenAI sends for `encoding_format: base64`. */
export function toBase64(vector: number[]): string {
  const floats = Float32Array.from(vector);
  return Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength).toString('base64');
}

/** The upstream step's embeddings path: call, record the outcome, answer in the asked encoding. */
export async function serveEmbeddings(ctx: GatewayContext, now: () => number): Promise<Response> {
  const answer = await fetchEmbeddings(ctx, now);
  const request = ctx.body as unknown as EmbeddingsRequest;
  ctx.outcome.usage = { prompt_tokens: answer.usage.prompt_tokens, completion_tokens: 0, total_tokens: answer.usage.total_tokens };
  ctx.outcome.finished = true;
  // The log keeps the answer without its vectors: kilobytes of floats per input say nothing to a reader.
  ctx.outcome.response = {
    object: 'list',
    model: answer.model,
    usage: answer.usage,
    data: answer.data.map((item) => ({ object: 'embedding', index: item.index, dimensions: item.embedding.length })),
  };
  if (request.encoding_format === 'base64') {
    for (const item of answer.data) if (Array.isArray(item.embedding)) item.embedding = toBase64(item.embedding);
  }
  const text = JSON.stringify({ object: 'list', data: answer.data, model: answer.model, usage: answer.usage });
  return jsonAnswer(ctx, text);
}
