/**
 * A circuit breaker per deployment (provider id + upstream model: one overloaded model must not
 * take its provider's other models down), with its state in the state store so instances
 * sharing Redis share it. Cost: one GET before an attempt, one write only when the state
 * changes (a failure counted, the circuit opening, a probe starting, recovery).
 *
 * closed --N consecutive retryable failures--> open (skip for cooldown, doubling while it keeps
 * failing, capped) --cooldown over--> half-open (one probe; others still skip) --success--> closed
 *                                                                          --failure--> open (longer)
 */
import type { RoutingConfig } from '../config/types.ts';
import type { StateStore } from '../store/types.ts';

export interface BreakerState {
  /** Consecutive retryable failures. */
  failures: number;
  /** Skip the deployment until this time (ms); 0 when closed. */
  openUntil: number;
  /** The current open period; doubles on each failed probe. */
  cooldownMs: number;
  /** A probe is running (half-open) until openUntil. */
  probing?: boolean;
}

export type BreakerVerdict = { allowed: true; state: BreakerState | null; probe: boolean } | { allowed: false; retryInMs: number };

export interface Breaker {
  /** Read the state and decide (one GET; one SET when this call becomes the half-open probe). */
  check(deployment: string): Promise<BreakerVerdict>;
  /** After a success: close the circuit if it held any failures. */
  success(deployment: string, before: BreakerState | null): Promise<void>;
  /** After a retryable failure: count it, open the circuit at the threshold. */
  failure(deployment: string, before: BreakerState | null): Promise<void>;
}

const keyOf = (deployment: string) => `gw:breaker:${deployment}`;

/** The breaker key part of a target: `provider/upstream-model`. */
export const deploymentOf = (providerId: string, upstreamModel: string) => `${providerId}/${upstreamModel}`;

export function createBreaker(store: StateStore, config: RoutingConfig['breaker'], now: () => number = Date.now): Breaker {
  const { failure_threshold: threshold, cooldown_ms: cooldown, max_cooldown_ms: maxCooldown } = config;
  // Stale counts must not add up over hours: forget a quiet deployment's state.
  const ttl = Math.max(maxCooldown * 4, 60_000);
  const write = (deployment: string, state: BreakerState) => store.set(keyOf(deployment), JSON.stringify(state), ttl);

  async function read(deployment: string): Promise<BreakerState | null> {
    const raw = await store.get(keyOf(deployment));
    if (!raw) return null;
    try {
      return JSON.parse(raw) as BreakerState;
    } catch {
      return null;
    }
  }

  return {
    async check(deployment) {
      const state = await read(deployment);
      if (!state || state.openUntil === 0) return { allowed: true, state, probe: false };
      const at = now();
      if (at < state.openUntil) return { allowed: false, retryInMs: state.openUntil - at };
      // Cool-down over: this caller is the probe; hold the others off while it runs.
      const probing: BreakerState = { ...state, probing: true, openUntil: at + Math.max(state.cooldownMs, 1000) };
      await write(deployment, probing);
      return { allowed: true, state: probing, probe: true };
    },
    async success(deployment, before) {
      if (before && (before.failures > 0 || before.openUntil > 0)) await store.del(keyOf(deployment));
    },
    async failure(deployment, before) {
      const failures = (before?.failures ?? 0) + 1;
      if (before?.probing) {
        // The probe failed: open again, for longer.
        const next = Math.min(maxCooldown, Math.max(before.cooldownMs, 1) * 2);
        return write(deployment, { failures, openUntil: now() + next, cooldownMs: next });
      }
      if (failures >= threshold) return write(deployment, { failures, openUntil: now() + cooldown, cooldownMs: cooldown });
      return write(deployment, { failures, openUntil: 0, cooldownMs: 0 });
    },
  };
}
