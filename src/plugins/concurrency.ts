/**
 * concurrency: at most `api.max_concurrent_requests` inference requests in flight per instance
 * (0 = off). Requests beyond it wait up to `api.queue_timeout_ms` (then 503 `queue_timeout`).
 * Waiting requests of groups with the `priority_queue` feature are admitted first, higher group
 * `priority` first; everyone else waits behind them in arrival order. A group with the
 * `dedicated_channel` feature has a pool of its own (`dedicated_slots`, default the same size),
 * so other groups' load can never take its slots. The slot is held until the last byte.
 *
 * Pools belong to the runtime, not to one pipeline, so in-flight requests keep their slots
 * across config reloads.
 */
import { clientClosed, serviceUnavailable } from '../kernel/errors.ts';
import type { GatewayContext } from '../pipeline/context.ts';
import { definePlugin } from '../pipeline/types.ts';
import type { Runtime } from '../pipeline/runtime.ts';
import { PoolTimeoutError, PriorityPool } from './concurrency-pool.ts';
import schema from '../../schemas/plugins/concurrency.schema.json' with { type: 'json' };

interface ConcurrencyOptions {
  dedicated_slots?: number;
}

interface Pools {
  shared: PriorityPool;
  dedicated: Map<string, PriorityPool>;
}

const LOCAL = 'concurrency';
const poolsByRuntime = new WeakMap<Runtime, Pools>();

function poolsOf(runtime: Runtime): Pools {
  let pools = poolsByRuntime.get(runtime);
  if (!pools) {
    pools = { shared: new PriorityPool(0), dedicated: new Map() };
    poolsByRuntime.set(runtime, pools);
  }
  return pools;
}

/** Requests waiting for a slot now, in every pool of `runtime` (the `gateway_concurrency_queued` gauge). */
export function queuedFor(runtime: Runtime): number {
  const pools = poolsByRuntime.get(runtime);
  if (!pools) return 0;
  let queued = pools.shared.queued;
  for (const pool of pools.dedicated.values()) queued += pool.queued;
  return queued;
}

/** The pool and queue priority of a request (exported for tests and the README's example). */
export function placement(ctx: GatewayContext, max: number, options: ConcurrencyOptions, pools: Pools): { pool: PriorityPool; priority: number } {
  const group = ctx.principal?.groupId ? ctx.snapshot.groups.get(ctx.principal.groupId) : undefined;
  const priority = group?.features.includes('priority_queue') ? group.priority : Number.NEGATIVE_INFINITY;
  if (group?.features.includes('dedicated_channel')) {
    let pool = pools.dedicated.get(group.id);
    if (!pool) pools.dedicated.set(group.id, (pool = new PriorityPool(0)));
    pool.max = options.dedicated_slots ?? max;
    return { pool, priority };
  }
  pools.shared.max = max;
  return { pool: pools.shared, priority };
}

/** Waits for a slot (503 `queue_timeout` when none frees in time), holds it, then goes on. */
async function admitted(ctx: GatewayContext, next: () => Promise<Response>, place: { pool: PriorityPool; priority: number }, timeout: number): Promise<Response> {
  let release: () => void;
  try {
    release = await place.pool.acquire(place.priority, timeout, ctx.signal);
  } catch (error) {
    if (error instanceof PoolTimeoutError) {
      throw serviceUnavailable(`The gateway is at its concurrency limit; no slot freed within ${timeout} ms. Retry later.`, 'queue_timeout');
    }
    throw clientClosed('The request was aborted while queued.');
  }
  ctx.locals.set(LOCAL, release);
  return next();
}

export default definePlugin<ConcurrencyOptions>({
  name: 'concurrency',
  schema,
  failure: 'closed',
  after: { auth: "the caller's group decides its queue priority and dedicated slots" },
  setup(options, { runtime }) {
    const pools = poolsOf(runtime);
    return {
      // Not async itself: with the limit off (0, the default) next()'s promise is handed straight back.
      handle(ctx, next) {
        const { max_concurrent_requests: max, queue_timeout_ms: timeout } = ctx.snapshot.config.api;
        if (max <= 0) return next();
        return admitted(ctx, next, placement(ctx, max, options, pools), timeout);
      },
      onComplete(ctx) {
        (ctx.locals.get(LOCAL) as (() => void) | undefined)?.();
      },
    };
  },
});
