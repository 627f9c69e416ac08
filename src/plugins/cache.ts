/**
 * cache: exact-match response cache, off unless `ttl_seconds` > 0. The key is the SHA-256 of
 * the endpoint, account, models, messages and every generation parameter; the client's
 * `prompt_cache_key` only partitions it further (OpenAI clients send one key for many prompts
 * sharing a prefix, so it must never stand for the prompt).
 * Only complete, successful answers are stored; a stream hit is replayed as chunks.
 */
import { createHash } from 'node:crypto';
import type { GatewayContext } from '../pipeline/context.ts';
import { observeChunks } from '../pipeline/observe-chunks.ts';
import { rendererFor } from '../pipeline/render.ts';
import { definePlugin } from '../pipeline/types.ts';
import type { ChatChunk, ChatCompletion } from '../providers/openai-types.ts';
import schema from '../../schemas/plugins/cache.schema.json' with { type: 'json' };

interface CacheOptions {
  ttl_seconds: number;
  /** Cache streamed answers too (replayed as chunks on a hit). */
  streams: boolean;
}

const IGNORED = new Set(['stream', 'stream_options', 'user', 'metadata', 'prompt_cache_key']);

export function cacheKey(ctx: GatewayContext): string {
  const hash = createHash('sha256').update(ctx.endpoint).update('\0');
  hash.update(ctx.principal?.accountId ?? '').update('\0');
  hash.update(typeof ctx.body.prompt_cache_key === 'string' ? ctx.body.prompt_cache_key : '').update('\0');
  const relevant: Record<string, unknown> = {};
  for (const key of Object.keys(ctx.body).sort()) if (!IGNORED.has(key)) relevant[key] = ctx.body[key];
  return `gw:cache:${hash.update(JSON.stringify(relevant)).digest('hex')}`;
}

/** Replay a stored completion as the chunk sequence a stream would have carried. */
async function* replay(completion: ChatCompletion): AsyncGenerator<ChatChunk> {
  const base = { id: completion.id, object: 'chat.completion.chunk' as const, created: completion.created, model: completion.model };
  for (const choice of completion.choices) {
    const { content, tool_calls } = choice.message;
    const delta = { role: 'assistant' as const, content, tool_calls: tool_calls?.map((call, index) => ({ index, ...call })) };
    yield { ...base, choices: [{ index: choice.index, delta, finish_reason: null }] };
    yield { ...base, choices: [{ index: choice.index, delta: {}, finish_reason: choice.finish_reason ?? 'stop' }] };
  }
  if (completion.usage) yield { ...base, choices: [], usage: completion.usage };
}

export default definePlugin<CacheOptions>({
  name: 'cache',
  schema,
  failure: 'open',
  setup(options, { runtime }) {
    const ttlMs = options.ttl_seconds * 1000;
    return {
      async handle(ctx, next) {
        // Embeddings are not completions: this cache stores and replays chat answers only.
        if (ttlMs <= 0 || (ctx.body.stream && !options.streams) || ctx.endpoint === 'embeddings') return next();
        ctx.cacheKey = cacheKey(ctx);
        const stored = await runtime.store.get(ctx.cacheKey);
        if (!stored) {
          ctx.outcome.cache = 'miss';
          return next();
        }
        ctx.outcome.cache = 'hit';
        const completion = JSON.parse(stored) as ChatCompletion;
        completion.model = ctx.body.model;
        ctx.outcome.usage = completion.usage;
        ctx.outcome.response = completion;
        ctx.responseHeaders.set('x-cache', 'hit');
        const renderer = rendererFor(ctx.endpoint);
        if (!ctx.body.stream) {
          ctx.outcome.finished = true;
          ctx.outcome.text = completion.choices.map((c) => c.message.content ?? '').join('');
          return renderer.json(ctx, completion);
        }
        ctx.outcome.streamed = true;
        return renderer.stream(ctx, observeChunks(ctx, replay(completion)), () => {});
      },
      async onComplete(ctx, outcome) {
        if (!ctx.cacheKey || outcome.cache !== 'miss' || outcome.status !== 200 || !outcome.finished || outcome.error || outcome.aborted) return;
        const completion = outcome.streamed ? outcome.assembly?.completion(outcome.usage) : (outcome.response as ChatCompletion | undefined);
        if (completion) await runtime.store.set(ctx.cacheKey, JSON.stringify(completion), ttlMs);
      },
    };
  },
});
