/**
 * cache: exact-match response cache, off unless `ttl_seconds` > 0. The key is the SHA-256 of
 * the endpoint, account, models, messages and every generation parameter; the client's
 * `prompt_cache_key` only partitions it further (OpenAI clients send one key for many prompts
 * sharing a prefix, so it must never stand for the prompt).
 * Only complete, successful answers are stored; a stream hit is replayed as chunks.
 */
import { createHash } from 'node:crypto';
import type { GatewayContext } from '../pipeline/context.ts';
import { answerFromCache, storableCompletion } from './cache-answer.ts';
import { definePlugin } from '../pipeline/types.ts';
import type { ChatCompletion } from '../providers/openai-types.ts';
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

export default definePlugin<CacheOptions>({
  name: 'cache',
  schema,
  failure: 'open',
  after: { auth: 'answers are cached per account', guardrails: 'a cached answer must pass the output guardrails, and the key must hold the redacted input' },
  setup(options, { runtime }) {
    const ttlMs = options.ttl_seconds * 1000;
    // Off (the default): no step and no observer, so the request pays nothing for it.
    if (ttlMs <= 0) return {};
    return {
      async handle(ctx, next) {
        // Embeddings are not completions: this cache stores and replays chat answers only.
        if ((ctx.body.stream && !options.streams) || ctx.endpoint === 'embeddings') return next();
        ctx.cacheKey = cacheKey(ctx);
        const stored = await runtime.store.get(ctx.cacheKey);
        if (!stored) {
          ctx.outcome.cache = 'miss';
          ctx.responseHeaders.set('x-cache', 'miss');
          return next();
        }
        return answerFromCache(ctx, JSON.parse(stored) as ChatCompletion, 'hit');
      },
      async onComplete(ctx, outcome) {
        if (!ctx.cacheKey) return;
        const completion = storableCompletion(outcome);
        if (completion) await runtime.store.set(ctx.cacheKey, JSON.stringify(completion), ttlMs);
      },
    };
  },
});
