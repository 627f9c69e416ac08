/**
 * permission: the key's `permissions.models` and its account group's `models` restrict which
 * models may be called (spec 5.4): a request naming any other model, as primary or fallback,
 * is 403 `model_not_permitted`. Empty lists allow every model. A model's configured
 * `fallbacks` the caller may not use are not refused here: the route step leaves them out.
 */
import { modelPermitted } from '../auth/model-permission.ts';
import { modelNotPermitted } from '../kernel/errors.ts';
import { definePlugin } from '../pipeline/types.ts';
import schema from '../../schemas/plugins/permission.schema.json' with { type: 'json' };

export default definePlugin({
  name: 'permission',
  schema,
  failure: 'closed',
  after: { auth: 'it checks the models against the caller the auth step resolved' },
  setup() {
    return {
      // Not async: a check with no I/O hands next()'s promise straight back (one hop less per call).
      handle(ctx, next) {
        const principal = ctx.principal;
        if (!principal || principal.kind === 'master') return next();
        ctx.requestedModels.forEach((model, index) => {
          if (!modelPermitted(principal, ctx.snapshot, model)) {
            throw modelNotPermitted(model, index === 0 ? 'model' : `fallbacks[${index - 1}]`);
          }
        });
        return next();
      },
    };
  },
});
