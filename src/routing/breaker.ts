/**
 * A circuit breaker per deployment (provider id + upstream model: one overloaded model must not
 * take its provider's other models down), with its state in the state store so instances
 * sharing Redis share it. Each step is one atomic store operation (store/circuit.ts has the
 * transitions): a check before an attempt, a failure count after one that failed for a reason
 * that says the upstream is unwell, a delete after a success that follows failures.
 *
 * The breaker only advises skipping: when every target of a request is open the request still
 * goes to the one whose open period ends first (try-targets.ts), so the gateway never refuses a
 * call in the name of an upstream that may have recovered.
 */
import type { RoutingConfig } from '../config/types.ts';
import type { CircuitCheck, StateStore } from '../store/types.ts';

/** The shortest time a half-open probe holds other callers off. */
export const PROBE_HOLD_MS = 1000;

export interface Breaker {
  /** Decide for one attempt (one atomic store step; it also claims the probe when the period is over). */
  check(deployment: string): Promise<CircuitCheck>;
  /** After a success: close the circuit if it held any failures (nothing to write otherwise). */
  success(deployment: string, before: CircuitCheck | null): Promise<void>;
  /** After an upstream-health failure: count it, open the circuit at the threshold. */
  failure(deployment: string): Promise<void>;
}

const keyOf = (deployment: string) => `gw:breaker:${deployment}`;

/** The breaker key part of a target: `provider/upstream-model`. */
export const deploymentOf = (providerId: string, upstreamModel: string) => `${providerId}/${upstreamModel}`;

export function createBreaker(store: StateStore, config: RoutingConfig['breaker']): Breaker {
  const { failure_threshold: threshold, cooldown_ms: cooldownMs, max_cooldown_ms: maxCooldownMs } = config;
  // Stale counts must not add up over hours: forget a quiet deployment's state.
  const ttlMs = Math.max(maxCooldownMs * 4, 60_000);
  const rule = { threshold, cooldownMs, maxCooldownMs, ttlMs };
  return {
    check: (deployment) => store.circuitCheck(keyOf(deployment), PROBE_HOLD_MS, ttlMs),
    async success(deployment, before) {
      // Unknown state (a panic attempt, a resumed leg): delete, it is cheap and certainly right.
      if (!before || before.failures > 0 || before.verdict !== 'closed') await store.del(keyOf(deployment));
    },
    async failure(deployment) {
      await store.circuitFailure(keyOf(deployment), rule);
    },
  };
}
