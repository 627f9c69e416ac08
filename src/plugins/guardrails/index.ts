/**
 * guardrails: runs the guardrails gateway.yaml declares (`guardrails:`) that apply to the request
 * (its model, the caller's group or key, or every request), where this step sits in `pipeline:`.
 * Input guardrails run before the steps below it (the cache, the upstream); output ones check the
 * answer on its way back: a whole answer once it is here (a cache hit included, when the cache
 * is below), a stream chunk by chunk (stream.ts). A request no guardrail applies to passes
 * straight through: one lookup, no await, no wrapper.
 */
import type { GatewayContext } from '../../pipeline/context.ts';
import type { Logger, Next } from '../../pipeline/types.ts';
import { definePlugin } from '../../pipeline/types.ts';
import schema from '../../../schemas/plugins/guardrails.schema.json' with { type: 'json' };
import { guardAnswer } from './answer.ts';
import { applicable, guardrailsOf } from './compile.ts';
import { guardInput } from './input.ts';
import { guardedRenderer, type WindowOptions } from './stream.ts';
import type { Guardrail } from './types.ts';

export default definePlugin<WindowOptions>({
  name: 'guardrails',
  schema,
  failure: 'closed',
  after: { auth: 'guardrails attach to keys and groups, known once the caller is' },
  setup(options, { logger }) {
    return {
      handle(ctx, next) {
        const set = guardrailsOf(ctx.snapshot);
        if (set.all.length === 0) return next();
        const input = applicable(set, ctx, 'input');
        // Embeddings answer vectors: there is no text to check on the way out.
        const output = ctx.endpoint === 'embeddings' ? [] : applicable(set, ctx, 'output');
        if (!input.length && !output.length) return next();
        return guarded(ctx, next, input, output, options, logger);
      },
    };
  },
});

/** Runs `input` now and `output` on the answer (shared with plugin-defined guardrails, define.ts). */
export async function guarded(ctx: GatewayContext, next: Next, input: Guardrail[], output: Guardrail[], window: WindowOptions, logger: Logger): Promise<Response> {
  if (input.length) await guardInput(ctx, input, logger);
  if (!output.length) return next();
  if (ctx.body.stream) {
    ctx.renderer = guardedRenderer(ctx.renderer, output, window, logger);
    return next();
  }
  const response = await next();
  if (response.status !== 200 || ctx.outcome.streamed) return response;
  const redacted = await guardAnswer(ctx, output, logger);
  return redacted ? ctx.renderer.json(ctx, redacted) : response;
}
