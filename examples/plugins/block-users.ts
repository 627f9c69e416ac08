/**
 * Example custom plugin: refuse requests from blocked `user` values and tag every answer with
 * a header. Load it from gateway.yaml:
 *
 *   pipeline:
 *     - log
 *     - auth
 *     - name: block-users
 *       module: ./examples/plugins/block-users.ts
 *       options: { blocked: [mallory], header: x-checked-by }
 *     - ...
 */
import { definePlugin } from '../../src/pipeline/types.ts';
import { forbidden } from '../../src/pipeline/errors.ts';

interface Options {
  blocked: string[];
  header: string;
}

export default definePlugin<Options>({
  name: 'block-users',
  failure: 'closed',
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['blocked'],
    properties: {
      blocked: { type: 'array', items: { type: 'string' } },
      header: { type: 'string', default: 'x-checked-by' },
    },
  },
  setup(options, { logger }) {
    const blocked = new Set(options.blocked);
    let refused = 0;
    return {
      async handle(ctx, next) {
        if (ctx.body.user && blocked.has(ctx.body.user)) {
          refused++;
          throw forbidden(`User '${ctx.body.user}' is blocked.`, 'user_blocked');
        }
        const response = await next();
        response.headers.set(options.header, 'block-users');
        return response;
      },
      onComplete(ctx, outcome) {
        if (outcome.status >= 400) logger.info('block-users saw a failed call', { request: ctx.id, status: outcome.status });
      },
      close() {
        logger.info('block-users closing', { refused });
      },
    };
  },
});
