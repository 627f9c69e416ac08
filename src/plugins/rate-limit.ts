/**
 * rate-limit: per key, `permissions.rate_limit` requests per minute and the global
 * `api.rate_limit` per `api.rate_limit_period` seconds; and token quotas of the caller's group
 * and of the routed provider (`quota_limit`). Rates and quota reservations are checked in ONE
 * atomic store call (one Lua script on Redis), so concurrent requests on any number of instances
 * cannot overspend: each admitted request reserves an estimate, and its onComplete settles the
 * reservation to the real usage (streams too). Every answer carries the x-ratelimit-* headers of
 * the tightest rule; a refusal is 429 with Retry-After (`insufficient_quota` for quotas).
 *
 * Runs after `route` (the provider quota needs the target); before it, only group quotas apply.
 */
import { insufficientQuota, rateLimited } from '../pipeline/errors.ts';
import type { GatewayContext } from '../pipeline/context.ts';
import { answeredFromCache, type Outcome } from '../pipeline/outcome.ts';
import { definePlugin } from '../pipeline/types.ts';
import type { QuotaRule, RateRule, RateState, StateStore } from '../store/types.ts';
import { groupQuotaKey, providerQuotaKey } from '../management/counters.ts';
import schema from '../../schemas/plugins/rate-limit.schema.json' with { type: 'json' };

interface RateLimitOptions {
  default_reserve_tokens: number;
  max_reserve_tokens: number;
}

/** What this request reserved, settled in onComplete. */
interface Reservation {
  amount: number;
  groupKey?: string;
  providerKey?: string;
}

const LOCAL = 'rate-limit';

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

/**
 * Rough prompt size in tokens (4 characters each): only sizes the reservation, settled later.
 * Taken over the request text as received, which is at hand: a large prompt is not serialised
 * again on every call, and its tools and system text count as input, as upstreams bill them.
 */
function promptEstimate(ctx: GatewayContext): number {
  const text = ctx.rawBodyText ?? JSON.stringify(ctx.body.messages ?? '');
  return Math.ceil(text.length / 4);
}

/** Tokens reserved before the call: prompt estimate + the completion allowance. */
export function reserveEstimate(ctx: GatewayContext, options: RateLimitOptions): number {
  const body = ctx.body as { max_tokens?: unknown; max_completion_tokens?: unknown };
  const asked = Number(body.max_completion_tokens ?? body.max_tokens);
  const completion = Number.isInteger(asked) && asked > 0 ? asked : options.default_reserve_tokens;
  return Math.min(options.max_reserve_tokens, promptEstimate(ctx) + completion);
}

/** The tokens a finished request really used (0 for cache hits: no upstream tokens were spent). */
export function actualTokens(ctx: GatewayContext, outcome: Outcome): number {
  if (answeredFromCache(outcome)) return 0;
  if (outcome.usage?.total_tokens !== undefined) return outcome.usage.total_tokens;
  // A stream without a usage chunk (or an aborted one): estimate from what was sent and received.
  if (!outcome.text) return 0;
  return promptEstimate(ctx) + Math.ceil(outcome.text.length / 4);
}

function rateHeaders(state: RateState): Record<string, string> {
  return {
    'x-ratelimit-limit-requests': String(state.limit),
    'x-ratelimit-remaining-requests': String(Math.max(0, state.remaining)),
    'x-ratelimit-reset-requests': `${Math.ceil(state.resetMs / 1000)}s`,
  };
}

const tightest = (states: RateState[]) => states.reduce((a, b) => (b.remaining < a.remaining ? b : a));

/** Drops targets whose provider quota is already spent, so fallbacks on other providers still serve. */
async function withinProviderQuota(ctx: GatewayContext, store: StateStore): Promise<void> {
  const limited = [...new Set(ctx.targets.filter((t) => t.provider.quota_limit > 0).map((t) => t.provider))];
  if (!limited.length) return;
  const used = await store.getCounters(limited.map((p) => providerQuotaKey(p.id)));
  const spent = new Set(limited.filter((p, i) => used[i]! >= p.quota_limit).map((p) => p.id));
  if (!spent.size) return;
  const remaining = ctx.targets.filter((t) => !spent.has(t.provider.id));
  if (!remaining.length) {
    throw insufficientQuota(`The token quota of provider '${[...spent][0]}' is exhausted.`);
  }
  ctx.targets.splice(0, ctx.targets.length, ...remaining);
}

export default definePlugin<RateLimitOptions>({
  name: 'rate-limit',
  schema,
  failure: 'closed',
  setup(options, { runtime, logger }) {
    const store = runtime.store;
    return {
      async handle(ctx, next) {
        const rules = rateRules(ctx);
        const principal = ctx.principal;
        const quotas: QuotaRule[] = [];
        const reservation: Reservation = { amount: 0 };
        if (principal && principal.kind !== 'master') {
          await withinProviderQuota(ctx, store);
          reservation.amount = reserveEstimate(ctx, options);
          const group = principal.groupId ? ctx.snapshot.groups.get(principal.groupId) : undefined;
          // Quotas with limit 0 are unlimited but still counted, so quota_used is always known.
          if (group) {
            reservation.groupKey = groupQuotaKey(group.id);
            quotas.push({ key: reservation.groupKey, limit: group.quota_limit, reserve: reservation.amount });
          }
          const provider = ctx.targets[0]?.provider;
          if (provider) {
            reservation.providerKey = providerQuotaKey(provider.id);
            quotas.push({ key: reservation.providerKey, limit: provider.quota_limit, reserve: reservation.amount });
          }
        }
        if (rules.length === 0 && quotas.length === 0) return next();
        const result = await store.admit(rules, quotas);
        if (!result.allowed) {
          const refused = result.refusedBy;
          if (refused?.kind === 'quota') {
            const owner = refused.key === reservation.groupKey ? 'your group' : `provider '${ctx.targets[0]?.provider.id}'`;
            throw insufficientQuota(`The token quota of ${owner} is exhausted (${refused.used} of ${refused.limit} used).`);
          }
          const state = result.rates[refused?.kind === 'rate' ? refused.index : 0]!;
          throw rateLimited(state.resetMs / 1000, rateHeaders({ ...state, remaining: 0 }));
        }
        if (quotas.length) ctx.locals.set(LOCAL, reservation);
        if (result.rates.length) {
          for (const [name, value] of Object.entries(rateHeaders(tightest(result.rates)))) ctx.responseHeaders.set(name, value);
        }
        return next();
      },
      async onComplete(ctx, outcome) {
        const reservation = ctx.locals.get(LOCAL) as Reservation | undefined;
        if (!reservation) return;
        const actual = actualTokens(ctx, outcome);
        const settles: Promise<number>[] = [];
        if (reservation.groupKey) settles.push(store.incrBy(reservation.groupKey, actual - reservation.amount));
        // A fallback may have served from another provider than the one reserved on.
        const servedKey = outcome.served ? providerQuotaKey(outcome.served.provider) : reservation.providerKey;
        if (reservation.providerKey && servedKey === reservation.providerKey) {
          settles.push(store.incrBy(reservation.providerKey, actual - reservation.amount));
        } else {
          if (reservation.providerKey) settles.push(store.incrBy(reservation.providerKey, -reservation.amount));
          if (servedKey && actual) settles.push(store.incrBy(servedKey, actual));
        }
        await Promise.all(settles).catch((error: unknown) => logger.warn('quota settlement failed', { error: String(error), request: ctx.id }));
      },
    };
  },
});
