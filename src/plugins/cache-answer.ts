/**
 * Answer a request from a stored completion, the same way for the exact and the semantic
 * cache: JSON as is, or a stream replayed as the chunks it would have carried. The outcome
 * says it was a cache answer, which the log records and billing leaves unbilled.
 */
import type { GatewayContext } from '../pipeline/context.ts';
import { observeChunks } from '../pipeline/observe-chunks.ts';
import type { Outcome } from '../pipeline/outcome.ts';
import type { ChatChunk, ChatCompletion } from '../providers/openai-types.ts';

/** Replay a stored completion as the chunk sequence a stream would have carried (one batch: it is all here). */
export async function* replay(completion: ChatCompletion): AsyncGenerator<ChatChunk[]> {
  const base = { id: completion.id, object: 'chat.completion.chunk' as const, created: completion.created, model: completion.model };
  const chunks: ChatChunk[] = [];
  for (const choice of completion.choices) {
    const { content, tool_calls } = choice.message;
    const delta = { role: 'assistant' as const, content, tool_calls: tool_calls?.map((call, index) => ({ index, ...call })) };
    chunks.push({ ...base, choices: [{ index: choice.index, delta, finish_reason: null }] });
    chunks.push({ ...base, choices: [{ index: choice.index, delta: {}, finish_reason: choice.finish_reason ?? 'stop' }] });
  }
  if (completion.usage) chunks.push({ ...base, choices: [], usage: completion.usage });
  yield chunks;
}

/** Render `completion` (parsed from the cache) as this request's answer. */
export function answerFromCache(ctx: GatewayContext, completion: ChatCompletion, kind: Exclude<Outcome['cache'], 'miss' | 'off'>): Response {
  ctx.outcome.cache = kind;
  completion.model = ctx.body.model;
  ctx.outcome.usage = completion.usage;
  ctx.outcome.response = completion;
  ctx.responseHeaders.set('x-cache', kind);
  const renderer = ctx.renderer;
  if (!ctx.body.stream) {
    ctx.outcome.finished = true;
    ctx.outcome.text = completion.choices.map((c) => c.message.content ?? '').join('');
    return renderer.json(ctx, completion);
  }
  ctx.outcome.streamed = true;
  return renderer.stream(ctx, observeChunks(ctx, replay(completion)), () => {});
}

/** The completion a finished miss produced, to store; undefined when it must not be stored. */
export function storableCompletion(outcome: Outcome): ChatCompletion | undefined {
  if (outcome.cache !== 'miss' || outcome.status !== 200 || !outcome.finished || outcome.error || outcome.aborted) return undefined;
  return outcome.streamed ? outcome.assembly?.completion(outcome.usage) : (outcome.response as ChatCompletion | undefined);
}
