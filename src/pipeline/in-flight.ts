/**
 * The inference requests in flight in one gateway, across its config generations: from the
 * pipeline's first step to the last observer after the last byte (queued for a concurrency slot
 * included). The `gateway_inflight_requests` gauge reads it; the autoscaler scales on it, since a
 * long stream holds a slot while it costs almost no CPU.
 */
import type { Runtime } from './runtime.ts';

export interface InFlight {
  count: number;
}

const byRuntime = new WeakMap<Runtime, InFlight>();

/** The one counter of `runtime` (a fresh one for a missing runtime, as some unit tests build). */
export function inFlightOf(runtime: Runtime | undefined): InFlight {
  if (!runtime) return { count: 0 };
  let counter = byRuntime.get(runtime);
  if (!counter) byRuntime.set(runtime, (counter = { count: 0 }));
  return counter;
}
