/**
 * route: choose the ordered targets for the request (the primary model's deployments, then
 * each fallback's), per CONTRACT Routing. The fallbacks are the request's own, else the primary
 * model's configured `fallbacks` (src/routing/configured-fallbacks.ts) less those the caller may
 * not use: the permission step refuses a request naming a model it may not use, but a
 * configured fallback was not the caller's choice, so it is left out instead. Unknown or
 * inactive models are skipped so their fallbacks are still tried; nothing routable is 404
 * `model_not_found`. Models too small for the request or lacking a capability it needs are
 * skipped too (src/routing/fit.ts).
 */
import { modelPermitted } from '../auth/model-permission.ts';
import { invalidBody, modelNotFound } from '../kernel/errors.ts';
import type { GatewayContext } from '../pipeline/context.ts';
import { definePlugin } from '../pipeline/types.ts';
import { configuredFallbacks, requestNamesFallbacks } from '../routing/configured-fallbacks.ts';
import { fittingTargets } from '../routing/fit.ts';
import { resolveModel } from '../routing/resolve.ts';
import { embeddingTargets } from '../routing/embeddings.ts';
import schema from '../../schemas/plugins/route.schema.json' with { type: 'json' };

/** The models to try, primary first: the request's, or the primary and its configured fallbacks. */
function modelsToTry(ctx: GatewayContext): string[] {
  const requested = ctx.requestedModels;
  if (requestNamesFallbacks(ctx.body)) return requested;
  const configured = configuredFallbacks(ctx.snapshot, requested[0]!);
  return [...requested, ...configured.filter((model) => modelPermitted(ctx.principal, ctx.snapshot, model))];
}

export default definePlugin({
  name: 'route',
  schema,
  failure: 'closed',
  after: { auth: "the account's default model is applied by the auth step" },
  setup() {
    return {
      // Not async: resolution does no I/O, so next()'s promise is handed straight back.
      handle(ctx, next) {
        // The account's default model, if any, is in the body already (the auth step).
        if (!ctx.body.model) throw invalidBody('`model` is required (and the account has no default_model).', 'model');
        const models = modelsToTry(ctx);
        for (const model of models) ctx.targets.push(...resolveModel(ctx.snapshot, model));
        if (ctx.targets.length === 0) throw modelNotFound(models[0]);
        ctx.targets = ctx.endpoint === 'embeddings' ? embeddingTargets(ctx, ctx.targets) : fittingTargets(ctx.snapshot.config, ctx.body, ctx.targets);
        return next();
      },
    };
  },
});
