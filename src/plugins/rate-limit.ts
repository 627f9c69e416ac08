/**
 * rate-limit: per key, `permissions.rate_limit` requests per minute and the global
 * `api.rate_limit` per `api.rate_limit_period` seconds, checked in one atomic store call
 * (one Redis round trip when shared). Every answer carries the x-ratelimit-* headers of the
 * tightest rule; a refusal is 429 with Retry-After.
 */
import { rateLimited } from '../pipeline/errors.ts';
import type { GatewayContext } from '../pipeline/context.ts';
import { definePlugin } from '../pipeline/types.ts';
import type { RateRule, RateState } from '../store/types.ts';
import schema from '../../schemas/plugins/rate-limit.schema.json' with { type: 'json' };

/** The rules that apply to this caller, keyed by who it is (key id, or account for tokens). */
export function rateRules(ctx: GatewayContext): RateRule[] {
  const principal = ctx.principal;
  if (!principal || principal.kind === 'master') return [];
  const subject = principal.key ? `key:${principal.key.id}` : `account:${principal.accountId}`;
  const rules: RateRule[] = [];
  const perKey = principal.key?.permissions.rate_limit ?? 0;
  if (perKey > 0) rules.push({ key: `gw:rl:${subject}:rpm`, limit: perKey, windowMs: 60_000 });
  const { rate_limit, rate_limit_period } = ctx.snapshot.config.api;
  if (rate_limit > 0) rules.push({ key: `gw:rl:${subject}:api`, limit: rate_limit, windowMs: rate_limit_period * 1000 });
  return rules;
}

function rateHeaders(state: RateState): Record<string, string> {
  return {
    'x-ratelimit-limit-requests': String(state.limit),
    'x-ratelimit-remaining-requests': String(Math.max(0, state.remaining)),
    'x-ratelimit-reset-requests': `${Math.ceil(state.resetMs / 1000)}s`,
  };
}

const tightest = (states: RateState[]) => states.reduce((a, b) => (b.remaining < a.remaining ? b : a));

export default definePlugin({
  name: 'rate-limit',
  schema,
  failure: 'closed',
  setup(_options, { runtime }) {
    return {
      async handle(ctx, next) {
        const rules = rateRules(ctx);
        if (rules.length === 0) return next();
        const result = await runtime.store.admit(rules, []);
        if (!result.allowed && result.refusedBy?.kind === 'rate') {
          const refused = result.rates[result.refusedBy.index];
          throw rateLimited(refused.resetMs / 1000, rateHeaders({ ...refused, remaining: 0 }));
        }
        for (const [name, value] of Object.entries(rateHeaders(tightest(result.rates)))) ctx.responseHeaders.set(name, value);
        return next();
      },
    };
  },
});
