/**
 * upstream (terminal): try `ctx.targets` in order. Each target is retried on transient failures
 * with backoff (honouring Retry-After), then the next target is tried. Streams commit late: the
 * 200 is sent only once the first content token has arrived, so earlier failures fall over
 * invisibly; after the commit a failure ends the stream with an error event.
 */
import type { GatewayContext } from '../pipeline/context.ts';
import { modelNotFound, upstreamUnavailable } from '../pipeline/errors.ts';
import { observeChunks } from '../pipeline/observe-chunks.ts';
import { rendererFor } from '../pipeline/render.ts';
import { definePlugin } from '../pipeline/types.ts';
import type { Target } from '../providers/types.ts';
import { AttemptError, toClientError } from '../routing/attempt-error.ts';
import { backoffDelay, sleep } from '../routing/backoff.ts';
import { callJson, openStream, type AttemptInput, type OpenStream } from '../routing/call.ts';
import { timeoutsFor } from '../routing/timeouts.ts';
import schema from '../../schemas/plugins/upstream.schema.json' with { type: 'json' };

export default definePlugin({
  name: 'upstream',
  schema,
  failure: 'closed',
  setup(_options, { runtime, now }) {
    const { transport, adapters } = runtime;

    function attemptInput(ctx: GatewayContext, target: Target): AttemptInput {
      return {
        request: ctx.body,
        target,
        adapter: adapters.get(target.provider),
        transport,
        timeouts: timeoutsFor(ctx.snapshot.config, target),
        signal: ctx.signal,
      };
    }

    /** Run `call` against each target with retries; returns the first success. */
    async function firstSuccess<T>(ctx: GatewayContext, call: (input: AttemptInput) => Promise<T>): Promise<{ value: T; target: Target }> {
      const { retries, backoff_ms, backoff_max_ms, max_retry_after_ms } = ctx.snapshot.config.routing;
      let last: AttemptError | undefined;
      for (const [index, target] of ctx.targets.entries()) {
        for (let retry = 0; retry <= retries; retry++) {
          const started = now();
          try {
            const value = await call(attemptInput(ctx, target));
            record(ctx, target, started, 200, null, index, retry);
            return { value, target };
          } catch (error) {
            if (!(error instanceof AttemptError)) throw error; // client gone or a bug: not an upstream verdict
            last = error;
            record(ctx, target, started, error.info.status, error.info.code, index, retry);
            if (!error.fallOver) throw toClientError(error);
            if (!error.retrySame || retry === retries) break;
            const wait = error.retryAfterMs ?? backoffDelay(retry, backoff_ms, backoff_max_ms);
            if (wait > max_retry_after_ms) break; // a long Retry-After: fall over at once
            await sleep(wait, ctx.signal);
          }
        }
      }
      throw last ? toClientError(last) : upstreamUnavailable();
    }

    function record(ctx: GatewayContext, target: Target, started: number, status: number, errorCode: string | null, index: number, retry: number) {
      ctx.outcome.attempts.push({
        model: target.requestedAs,
        provider: target.provider.id,
        upstreamModel: target.upstreamModel,
        status,
        errorCode,
        latencyMs: now() - started,
        kind: retry > 0 ? 'retry' : index > 0 ? 'fallback' : 'first',
      });
      if (status === 200) {
        ctx.outcome.served = { model: target.requestedAs, provider: target.provider.id, upstreamModel: target.upstreamModel };
      }
    }

    async function* streamOf(opened: OpenStream) {
      yield* opened.head;
      yield* opened.rest;
    }

    return {
      async handle(ctx) {
        if (ctx.targets.length === 0) throw modelNotFound(ctx.body.model);
        const renderer = rendererFor(ctx.endpoint);
        if (ctx.body.stream) {
          const { value: opened } = await firstSuccess(ctx, openStream);
          ctx.outcome.streamed = true;
          ctx.outcome.ttfbMs = now() - ctx.startedAt;
          return renderer.stream(ctx, observeChunks(ctx, streamOf(opened)), opened.abort);
        }
        const { value: completion } = await firstSuccess(ctx, callJson);
        ctx.outcome.usage = completion.usage;
        ctx.outcome.finished = true;
        ctx.outcome.text = completion.choices.map((choice) => choice.message?.content ?? '').join('');
        ctx.outcome.response = completion;
        return renderer.json(ctx, completion);
      },
    };
  },
});
