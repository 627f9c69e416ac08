/**
 * rate-limit: per key, `permissions.rate_limit` requests per minute and the global
 * `api.rate_limit` per `api.rate_limit_period` seconds; and token quotas of the caller's group,
 * of the caller's key (`permissions.quota_limit`) and of the routed provider (`quota_limit`, for
 * every caller), each optionally per calendar period (`quota_period`, see src/quota). Rates and quota reservations are checked in ONE
 * atomic store call (one Lua script on Redis), so concurrent requests on any number of instances
 * cannot overspend: each admitted request reserves an estimate, and its onComplete settles the
 * reservation to the real usage (streams too). Every answer carries the x-ratelimit-* headers of
 * the tightest rule; a refusal is 429 with them and Retry-After (`insufficient_quota` for quotas:
 * Retry-After is when a periodic budget starts over; a budget that never does has none).
 * A budget without a limit (quota_limit 0) is only counted: it reserves nothing and gets the
 * real usage at the end, so a call with no rate rule and no limited budget makes no store call
 * before it runs (no Redis round trip).
 *
 * Runs after `route` (the provider quota needs the target); before it, only group and key quotas apply.
 */
import { insufficientQuota, rateLimited } from '../kernel/errors.ts';
import type { GatewayContext } from '../pipeline/context.ts';
import { answeredFromCache, generatedText, type Outcome } from '../pipeline/outcome.ts';
import { definePlugin } from '../pipeline/types.ts';
import type { QuotaRule, RateRule, RateState, StateStore } from '../store/types.ts';
import { describeBudget, gatewayTimeZone, groupBudget, keyBudget, providerBudget, type Budget } from '../quota/budgets.ts';
import { instant } from '../quota/counter.ts';
import schema from '../../schemas/plugins/rate-limit.schema.json' with { type: 'json' };

interface RateLimitOptions {
  default_reserve_tokens: number;
  max_reserve_tokens: number;
}

/** What this request reserved, settled in onComplete. */
interface Reservation {
  /** Reserved on each budget that has a limit; a budget without one reserved nothing. */
  amount: number;
  /** The group's and the key's budgets: settled where they were reserved. */
  caller: Budget[];
  /** The routed provider's budget: moved to the provider that served, if a fallback did. */
  provider?: Budget;
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
  const generated = generatedText(outcome);
  if (!generated) return 0;
  return promptEstimate(ctx) + Math.ceil(generated.length / 4);
}

/**
 * OpenAI's rate headers. The reset is the time until the limit is back to its initial state (the
 * newest counted hit leaves the window), not until the next slot frees: a client pacing itself by
 * it would otherwise read "0s" while hits are still counted and over-send. (Retry-After, on a
 * refusal, is the time until the next slot frees.)
 */
function rateHeaders(state: RateState): Record<string, string> {
  return {
    'x-ratelimit-limit-requests': String(state.limit),
    'x-ratelimit-remaining-requests': String(Math.max(0, state.remaining)),
    'x-ratelimit-reset-requests': `${Math.ceil(state.clearMs / 1000)}s`,
  };
}

const tightest = (states: RateState[]) => states.reduce((a, b) => (b.remaining < a.remaining ? b : a));

/**
 * The refusal of a spent budget. A periodic one says when it starts over, in the message and as
 * Retry-After; one that never starts over says so and has no Retry-After (waiting would not help).
 */
function budgetSpent(budget: Budget, now: number, used: string, headers: Record<string, string> = {}) {
  const spent = `The token quota of ${describeBudget(budget)} is exhausted${used}`;
  const { resetsAt } = budget.counter;
  if (resetsAt === null) {
    return insufficientQuota(`${spent}; it does not start over on its own (an administrator can reset or raise it).`, undefined, headers);
  }
  return insufficientQuota(`${spent}; it starts over at ${instant(resetsAt)}.`, (resetsAt - now) / 1000, headers);
}

/** Drops targets whose provider quota is already spent, so fallbacks on other providers still serve. */
async function withinProviderQuota(ctx: GatewayContext, store: StateStore, now: number): Promise<void> {
  const limited = [...new Set(ctx.targets.filter((t) => t.provider.quota_limit > 0).map((t) => t.provider))];
  const used = await store.getCounters(limited.map((p) => providerBudget(p, ctx.snapshot, now).counter.key));
  const spent = new Set(limited.filter((p, i) => used[i]! >= p.quota_limit).map((p) => p.id));
  if (!spent.size) return;
  const remaining = ctx.targets.filter((t) => !spent.has(t.provider.id));
  if (!remaining.length) {
    // Named by the one that starts over first: that is when the request can be served again.
    const budgets = limited.filter((p) => spent.has(p.id)).map((p) => providerBudget(p, ctx.snapshot, now));
    const soonest = budgets.reduce((a, b) => ((b.counter.resetsAt ?? Infinity) < (a.counter.resetsAt ?? Infinity) ? b : a));
    throw budgetSpent(soonest, now, '');
  }
  ctx.targets.splice(0, ctx.targets.length, ...remaining);
}

/**
 * The budgets this call counts against. The routed provider's counts for every caller, the
 * master key included: it protects the provider's account, whoever calls. Group and key budgets
 * are the caller's own. A key budget is counted only while it has a limit; group and provider
 * counters run with limit 0 too (unlimited), so their quota_used is always known.
 */
function callBudgets(ctx: GatewayContext, now: number): { caller: Budget[]; provider?: Budget } {
  const principal = ctx.principal;
  const caller: Budget[] = [];
  const group = principal?.groupId ? ctx.snapshot.groups.get(principal.groupId) : undefined;
  if (group) caller.push(groupBudget(group, ctx.snapshot, now));
  const key = principal?.key;
  if (key && key.permissions.quota_limit > 0) {
    caller.push(keyBudget(key, ctx.settings?.account.timezone ?? gatewayTimeZone(ctx.snapshot), now));
  }
  const routed = ctx.targets[0]?.provider;
  return { caller, provider: routed && providerBudget(routed, ctx.snapshot, now) };
}

/** What a budget holds reserved for this call: the estimate where a limit is enforced, else nothing. */
const reservedOn = (budget: Budget, reservation: Reservation) => (budget.limit > 0 ? reservation.amount : 0);

const quotaRule = (budget: Budget, reserve: number): QuotaRule => ({
  key: budget.counter.key,
  limit: budget.limit,
  reserve,
  ...(budget.counter.ttlMs ? { ttlMs: budget.counter.ttlMs } : {}),
});

/**
 * Adds `delta` tokens to a budget's counter. A periodic counter may not exist yet (a fallback's
 * provider, or a reset during the call): counted through `admit` with no limit, so it gets its
 * expiry as a reservation would, in the same single store call.
 */
function settle(store: StateStore, budget: Budget, delta: number): Promise<unknown> {
  if (delta === 0) return Promise.resolve();
  if (!budget.counter.ttlMs) return store.incrBy(budget.counter.key, delta);
  return store.admit([], [{ ...quotaRule(budget, delta), limit: 0 }]);
}

export default definePlugin<RateLimitOptions>({
  name: 'rate-limit',
  schema,
  failure: 'closed',
  after: { auth: "key and group limits need the caller", route: 'provider quotas need the routed provider (checked in the same atomic call as the rates)' },
  setup(options, { runtime, logger, now: clock }) {
    const store = runtime.store;

    /** The rates and budgets of this call: nothing to check hands next()'s promise straight back. */
    function admit(ctx: GatewayContext, next: () => Promise<Response>, now: number): Promise<Response> {
      const rules = rateRules(ctx);
      const { caller, provider } = callBudgets(ctx, now);
      const budgets = provider ? [...caller, provider] : caller;
      const limited = budgets.filter((budget) => budget.limit > 0);
      const reservation: Reservation = { amount: limited.length ? reserveEstimate(ctx, options) : 0, caller, provider };
      // Settled in onComplete; only once admitted, as a refusal reserved nothing.
      const admitted = () => {
        if (budgets.length) ctx.locals.set(LOCAL, reservation);
        return next();
      };
      // Nothing to check: the budgets are only counted, with the real usage at the end.
      if (rules.length === 0 && limited.length === 0) return admitted();
      return reserve(ctx, rules, limited, reservation.amount, admitted, now);
    }

    /** One atomic store call for the rates and the limited budgets: refuses, or reserves and runs. */
    async function reserve(ctx: GatewayContext, rules: RateRule[], limited: Budget[], amount: number, admitted: () => Promise<Response>, now: number) {
      const result = await store.admit(rules, limited.map((b) => quotaRule(b, amount)));
      if (!result.allowed) {
        const refused = result.refusedBy;
        if (refused?.kind === 'quota') {
          const budget = limited.find((b) => b.counter.key === refused.key)!;
          const headers = result.rates.length ? rateHeaders(tightest(result.rates)) : {};
          throw budgetSpent(budget, now, ` (${refused.used} of ${refused.limit} used)`, headers);
        }
        const state = result.rates[refused?.kind === 'rate' ? refused.index : 0]!;
        throw rateLimited(state.resetMs / 1000, rateHeaders({ ...state, remaining: 0 }));
      }
      if (result.rates.length) {
        for (const [name, value] of Object.entries(rateHeaders(tightest(result.rates)))) ctx.responseHeaders.set(name, value);
      }
      return admitted();
    }

    return {
      // Not async: a call with nothing to check makes no store call and no promise of its own.
      handle(ctx, next) {
        const now = clock();
        if (ctx.targets.some((target) => target.provider.quota_limit > 0)) {
          return withinProviderQuota(ctx, store, now).then(() => admit(ctx, next, now));
        }
        return admit(ctx, next, now);
      },
      async onComplete(ctx, outcome) {
        const reservation = ctx.locals.get(LOCAL) as Reservation | undefined;
        if (!reservation) return;
        const actual = actualTokens(ctx, outcome);
        const settles = reservation.caller.map((budget) => settle(store, budget, actual - reservedOn(budget, reservation)));
        const reserved = reservation.provider;
        // A fallback may have served from another provider than the one reserved on.
        const servedId = outcome.served?.provider ?? reserved?.id;
        if (reserved && servedId === reserved.id) {
          settles.push(settle(store, reserved, actual - reservedOn(reserved, reservation)));
        } else {
          if (reserved) settles.push(settle(store, reserved, -reservedOn(reserved, reservation)));
          const served = servedId ? ctx.snapshot.providers.get(servedId) : undefined;
          if (served) settles.push(settle(store, providerBudget(served, ctx.snapshot, clock()), actual));
        }
        await Promise.all(settles).catch((error: unknown) => logger.warn('quota settlement failed', { error: String(error), request: ctx.id }));
      },
    };
  },
});
