/**
 * The order of a model's deployments among a request's targets (the fallbacks keep their
 * place after them). resolve.ts has put each model's deployments in weighted random order; this
 * re-sorts them when the model's strategy says so, from this instance's latency book:
 *
 * - `weighted` (the default): as resolved, each deployment first in proportion to its weight.
 * - `least_busy`: fewest calls in flight first (ties keep the weighted order).
 * - `lowest_latency`: lowest recent time to first token plus time per token first; a deployment
 *   not measured yet comes first (so it gets measured), and one request in ten keeps the
 *   weighted order, so that a slower deployment is measured again and traffic comes back to it
 *   once it is fast.
 */
import type { GatewayConfig, RoutingStrategy } from '../config/types.ts';
import type { Target } from '../providers/types.ts';
import { deploymentOf } from './breaker.ts';
import type { LatencyBook } from './latency.ts';

/** Share of requests that keep the weighted order under lowest_latency. */
export const EXPLORE = 0.1;
/** The answer length assumed to weigh time per token against time to first token. */
const TYPICAL_TOKENS = 100;

/** The targets with each model's run of deployments ordered by its strategy (the same array when nothing moves). */
export function orderTargets(targets: Target[], config: GatewayConfig, book: LatencyBook, stream: boolean, random = Math.random): Target[] {
  let ordered = targets;
  for (let start = 0; start < targets.length; ) {
    let end = start + 1;
    const model = targets[start]!.model;
    while (model && end < targets.length && targets[end]!.model === model && targets[end]!.requestedAs === targets[start]!.requestedAs) end++;
    const strategy: RoutingStrategy = model?.strategy ?? config.routing.strategy;
    if (end - start > 1 && strategy !== 'weighted' && !(strategy === 'lowest_latency' && random() < EXPLORE)) {
      if (ordered === targets) ordered = [...targets];
      const run = ordered.slice(start, end);
      const key = strategy === 'least_busy' ? busyness(book) : latencyScore(book, stream);
      const keyed = run.map((target, position) => ({ target, position, key: key(target) }));
      keyed.sort((a, b) => a.key - b.key || a.position - b.position);
      for (let i = 0; i < keyed.length; i++) ordered[start + i] = keyed[i]!.target;
    }
    start = end;
  }
  return ordered;
}

const idOf = (target: Target) => deploymentOf(target.provider.id, target.upstreamModel);

function busyness(book: LatencyBook) {
  return (target: Target) => book.peek(idOf(target))?.inFlight ?? 0;
}

function latencyScore(book: LatencyBook, stream: boolean) {
  return (target: Target) => {
    const stats = book.peek(idOf(target));
    const ttft = stats?.ring(stream).mean;
    if (ttft === undefined) return -1; // never measured: try it
    return ttft + (stream ? (stats!.perTokenMs ?? 0) * TYPICAL_TOKENS : 0);
  };
}
