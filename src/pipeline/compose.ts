/**
 * Compose onion steps into one function, once per pipeline (not per request). A step that
 * calls next() twice is a bug and throws, as in Hono's compose.
 */
import type { GatewayContext } from './context.ts';
import type { Step } from './types.ts';

export type Terminal = (ctx: GatewayContext) => Promise<Response>;

export function compose(steps: Step[], terminal: Terminal): (ctx: GatewayContext) => Promise<Response> {
  return function run(ctx) {
    let index = -1;
    const dispatch = (i: number): Promise<Response> => {
      if (i <= index) return Promise.reject(new Error('next() called more than once'));
      index = i;
      if (i === steps.length) return terminal(ctx);
      try {
        return Promise.resolve(steps[i](ctx, () => dispatch(i + 1)));
      } catch (error) {
        return Promise.reject(error);
      }
    };
    return dispatch(0);
  };
}
