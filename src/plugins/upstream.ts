/**
 * upstream (terminal): try `ctx.targets` in order (src/routing/try-targets.ts: retries with
 * backoff and Retry-After, circuit breaker per deployment, fallback). Streams commit late: the
 * 200 is sent only once the first content token has arrived, so earlier failures fall over
 * invisibly; after the commit src/routing/relay.ts relays the stream, closes it as soon as the
 * upstream has finished, and ends a broken one with an error event (or resumes it, once, on a
 * target that can continue it). A model's deployments are first ordered by its strategy
 * (src/routing/strategy.ts); a late first token is hedged on the next target (src/routing/hedge.ts).
 */
import { modelNotFound } from '../kernel/errors.ts';
import { observeChunks } from '../pipeline/observe-chunks.ts';
import { definePlugin } from '../pipeline/types.ts';
import { callJson, openStream } from '../routing/call.ts';
import { applyDefaultMaxTokens } from '../routing/fit.ts';
import { latencyBook } from '../routing/latency.ts';
import { relay } from '../routing/relay.ts';
import { orderTargets } from '../routing/strategy.ts';
import type { OpenStream } from '../routing/call.ts';
import type { ChatCompletion } from '../providers/openai-types.ts';
import { serveEmbeddings } from '../routing/embeddings.ts';
import { tryTargets } from '../routing/try-targets.ts';
import schema from '../../schemas/plugins/upstream.schema.json' with { type: 'json' };

export default definePlugin({
  name: 'upstream',
  schema,
  failure: 'closed',
  after: { route: 'it calls the targets the route step chose' },
  setup(_options, { now, logger }) {
    return {
      async handle(ctx) {
        if (ctx.targets.length === 0) throw modelNotFound(ctx.body.model);
        if (ctx.endpoint === 'embeddings') return serveEmbeddings(ctx, now);
        // Here, not in route: quota reservations (rate-limit) count only what the client asked for.
        applyDefaultMaxTokens(ctx.snapshot.config, ctx.body, ctx.targets);
        const renderer = ctx.renderer;
        const stream = ctx.body.stream === true;
        // In place: the resume of a broken stream looks its targets up by their index here.
        ctx.targets = orderTargets(ctx.targets, ctx.snapshot.config, latencyBook(ctx.runtime), stream);
        // Each options object spelled out: a spread of shared fields took V8's slow path (~1 % of
        // the main thread, bench/README.md).
        if (stream) {
          const opened = await tryTargets(ctx, openStream, { targets: ctx.targets, request: ctx.body, latency: { stream, discard: discardStream } }, now);
          ctx.outcome.streamed = true;
          ctx.outcome.ttfbMs = now() - ctx.startedAt;
          const kind = opened.kind;
          let abortCurrent = opened.value.abort;
          const chunks = relay(ctx, { stream: opened.value, target: opened.target, index: opened.index, kind }, {
            now,
            logger,
            setAbort: (abort) => (abortCurrent = abort),
          });
          return renderer.stream(ctx, observeChunks(ctx, chunks), () => abortCurrent());
        }
        const { value: completion } = await tryTargets(ctx, callJson, { targets: ctx.targets, request: ctx.body, latency: { stream, discard: discardJson } }, now);
        ctx.outcome.usage = completion.usage;
        ctx.outcome.finished = true;
        ctx.outcome.text = completion.choices.map((choice) => choice.message?.content ?? '').join('');
        ctx.outcome.response = completion;
        return renderer.json(ctx, completion);
      },
    };
  },
});

/** A stream that lost a hedged race after it had opened: aborted unread (its cost is not known). */
function discardStream(stream: OpenStream): undefined {
  stream.abort();
  void stream.rest.return(undefined).catch(() => {});
  return undefined;
}

/** A whole answer that lost a hedged race: dropped, its usage is what the hedge cost. */
const discardJson = (completion: ChatCompletion) => completion.usage?.total_tokens;
