/**
 * Embed a prompt for the semantic cache with the gateway's own routing: the configured model
 * is resolved and tried like a client's embeddings request (targets that can embed, retries,
 * fallbacks, breaker), in a context of its own so the chat request's attempts stay its own.
 */
import { createContext, type GatewayContext } from '../../pipeline/context.ts';
import type { ChatRequest } from '../../providers/openai-types.ts';
import { embeddingTargets, fetchEmbeddings } from '../../routing/embeddings.ts';
import { resolveModel } from '../../routing/resolve.ts';
import { normalized } from './store.ts';

export async function embedPrompt(ctx: GatewayContext, model: string, text: string, now: () => number): Promise<Float32Array> {
  const body = { model, input: text } as unknown as ChatRequest;
  const embedding = createContext({
    request: ctx.request, endpoint: 'embeddings', runtime: ctx.runtime, snapshot: ctx.snapshot, ip: ctx.ip, body, rawBody: body, signal: ctx.signal, id: ctx.id,
  });
  embedding.principal = ctx.principal;
  embedding.targets = embeddingTargets(embedding, resolveModel(ctx.snapshot, model));
  const answer = await fetchEmbeddings(embedding, now);
  const vector = answer.data[0]?.embedding;
  if (!Array.isArray(vector) || vector.length === 0) throw new Error('the embedding model answered no vector');
  return normalized(vector);
}
