/**
 * route: choose the ordered targets for the request (the primary model's deployments, then
 * each fallback's), per CONTRACT Routing. Unknown or inactive models are skipped so their
 * fallbacks are still tried; nothing routable is 404 `model_not_found`. Models too small for
 * the request or lacking a capability it needs are skipped too (src/routing/fit.ts).
 */
import { invalidBody, modelNotFound } from '../kernel/errors.ts';
import { definePlugin } from '../pipeline/types.ts';
import { fittingTargets } from '../routing/fit.ts';
import { resolveModel } from '../routing/resolve.ts';
import { embeddingTargets } from '../routing/embeddings.ts';
import schema from '../../schemas/plugins/route.schema.json' with { type: 'json' };

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
        const requested = ctx.requestedModels;
        for (const model of requested) ctx.targets.push(...resolveModel(ctx.snapshot, model));
        if (ctx.targets.length === 0) throw modelNotFound(requested[0]);
        ctx.targets = ctx.endpoint === 'embeddings' ? embeddingTargets(ctx, ctx.targets) : fittingTargets(ctx.snapshot.config, ctx.body, ctx.targets);
        return next();
      },
    };
  },
});
