/**
 * semantic-cache: answer a chat request from a stored completion whose prompt was worded alike.
 * Opt in per model (`semantic_cache: true`) or per request (`x-semantic-cache: on`; `off` opts
 * out). The last user turn is embedded with `embedding_model` through the gateway's routing
 * and compared (cosine, `threshold`) with the prompts stored in the same partition: account,
 * prompt_cache_key, model, system prompt and history, tools and sampling parameters
 * (semantic-cache/prompt.ts). `Cache-Control: no-cache` skips the lookup, `no-store` the
 * write. An embedding failure or a store outage is a miss, never an error. Answers say
 * `x-cache: semantic-hit` (with `x-cache-similarity`) or `miss`; a hit is not billed.
 */
import { answerFromCache, storableCompletion } from './cache-answer.ts';
import { embedPrompt } from './semantic-cache/embed-prompt.ts';
import { semanticPrompt } from './semantic-cache/prompt.ts';
import { createSharedSemanticStore } from './semantic-cache/shared-store.ts';
import { createMemorySemanticStore, type SemanticStore } from './semantic-cache/store.ts';
import type { GatewayContext } from '../pipeline/context.ts';
import { definePlugin } from '../pipeline/types.ts';
import type { ChatCompletion } from '../providers/openai-types.ts';
import schema from '../../schemas/plugins/semantic-cache.schema.json' with { type: 'json' };

interface SemanticCacheOptions {
  embedding_model: string;
  threshold: number;
  ttl_seconds: number;
  max_entries: number;
  max_partitions: number;
  store: 'memory' | 'shared';
  streams: boolean;
}

/** What a miss leaves for onComplete: where to store the answer. */
interface PendingWrite {
  partition: string;
  vector: Float32Array;
}

const LOCALS_KEY = 'semantic-cache';

/** The request asked for it, or its model did and the request did not opt out. */
function optedIn(ctx: GatewayContext): boolean {
  const header = ctx.request.headers.get('x-semantic-cache');
  if (header !== null) return header === 'on' || header === 'true';
  return ctx.targets[0]?.model?.semantic_cache === true;
}

function cacheControl(ctx: GatewayContext): { noCache: boolean; noStore: boolean } {
  const value = ctx.request.headers.get('cache-control')?.toLowerCase() ?? '';
  return { noCache: value.includes('no-cache'), noStore: value.includes('no-store') };
}

export default definePlugin<SemanticCacheOptions>({
  name: 'semantic-cache',
  schema,
  failure: 'open',
  after: { auth: 'answers are cached per account', route: 'it reads the routed models', guardrails: 'a cached answer must pass the output guardrails, and the key must hold the redacted input' },
  setup(options, { runtime, logger, now }) {
    const limits = { ttlMs: options.ttl_seconds * 1000, maxEntries: options.max_entries, maxPartitions: options.max_partitions };
    const store: SemanticStore = options.store === 'shared' ? createSharedSemanticStore(runtime.store, limits) : createMemorySemanticStore(limits);

    async function lookupVector(ctx: GatewayContext, text: string): Promise<Float32Array | null> {
      try {
        return await embedPrompt(ctx, options.embedding_model, text, now);
      } catch (error) {
        logger.warn('semantic cache: embedding failed, answering as a miss', { request: ctx.id, error: String(error) });
        return null;
      }
    }

    return {
      async handle(ctx, next) {
        // An exact hit never gets here: the cache step before this one answered it.
        if (ctx.endpoint !== 'chat' || !optedIn(ctx) || (ctx.body.stream && !options.streams)) return next();
        const prompt = semanticPrompt(ctx);
        if (!prompt) return next();
        const { noCache, noStore } = cacheControl(ctx);
        if (noCache && noStore) return next();
        ctx.outcome.cache = 'miss';
        ctx.responseHeaders.set('x-cache', 'miss');
        const vector = await lookupVector(ctx, prompt.text);
        if (!vector) return next();
        if (!noCache) {
          const match = await store.search(prompt.partition, vector, options.threshold).catch((error) => {
            logger.warn('semantic cache: store unavailable, answering as a miss', { request: ctx.id, error: String(error) });
            return null;
          });
          if (match) {
            ctx.outcome.cacheSimilarity = match.similarity;
            ctx.responseHeaders.set('x-cache-similarity', match.similarity.toFixed(4));
            return answerFromCache(ctx, JSON.parse(match.completion) as ChatCompletion, 'semantic-hit');
          }
        }
        if (!noStore) ctx.locals.set(LOCALS_KEY, { partition: prompt.partition, vector } satisfies PendingWrite);
        return next();
      },
      async onComplete(ctx, outcome) {
        const pending = ctx.locals.get(LOCALS_KEY) as PendingWrite | undefined;
        if (!pending) return;
        const completion = storableCompletion(outcome);
        if (completion) await store.add(pending.partition, pending.vector, JSON.stringify(completion));
      },
    };
  },
});
