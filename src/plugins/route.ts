/**
 * route: choose the ordered targets for the request (the primary model's deployments, then
 * each fallback's), per CONTRACT Routing. Unknown or inactive models are skipped so their
 * fallbacks are still tried; nothing routable is 404 `model_not_found`. Models too small for
 * the request or lacking a capability it needs are skipped too (src/routing/fit.ts).
 */
import { invalidBody, modelNotFound } from '../pipeline/errors.ts';
import { definePlugin } from '../pipeline/types.ts';
import { fittingTargets } from '../routing/fit.ts';
import { resolveModel } from '../routing/resolve.ts';
import { embeddingTargets } from '../routing/embeddings.ts';
import schema from '../../schemas/plugins/route.schema.json' with { type: 'json' };

export default definePlugin({
  name: 'route',
  schema,
  failure: 'closed',
  setup() {
    return {
      async handle(ctx, next) {
        if (!ctx.body.model) {
          const fallback = ctx.settings.api.default_model;
          if (!fallback) throw invalidBody('`model` is required (and the account has no default_model).', 'model');
          ctx.body.model = fallback;
          ctx.requestedModels.unshift(fallback);
        }
        for (const requested of ctx.requestedModels) ctx.targets.push(...resolveModel(ctx.snapshot, requested));
        if (ctx.targets.length === 0) throw modelNotFound(ctx.requestedModels[0]);
        ctx.targets = ctx.endpoint === 'embeddings' ? embeddingTargets(ctx, ctx.targets) : fittingTargets(ctx.snapshot.config, ctx.body, ctx.targets);
        return next();
      },
    };
  },
});
