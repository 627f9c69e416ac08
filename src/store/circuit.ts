/**
 * The circuit transitions, as pure functions of the stored state and the store's clock. The
 * memory store runs them as they are; CIRCUIT_CHECK_LUA and CIRCUIT_FAILURE_LUA (scripts.ts) are
 * the same rules on Redis, and the shared store suite holds both to them.
 *
 * closed --threshold consecutive failures--> open (skip for cooldown) --period over--> probe
 * (one caller; the others still skip) --failure--> open for twice as long (capped); a success
 * deletes the state (routing/breaker.ts).
 */
import type { CircuitCheck, CircuitRule, CircuitState } from './types.ts';

const CLOSED: CircuitState = Object.freeze({ failures: 0, openUntil: 0, cooldownMs: 0, probing: false });

/** A stored circuit, or the closed state for a missing or unreadable one. */
export function parseCircuit(raw: string | null | undefined): CircuitState {
  if (!raw) return CLOSED;
  try {
    const state = JSON.parse(raw) as Partial<CircuitState>;
    return {
      failures: Number(state.failures) || 0,
      openUntil: Number(state.openUntil) || 0,
      cooldownMs: Number(state.cooldownMs) || 0,
      probing: state.probing === true,
    };
  } catch {
    return CLOSED;
  }
}

/** The verdict for one caller, and the state to store when it became the probe. */
export function checkCircuit(state: CircuitState, now: number, probeHoldMs: number): { check: CircuitCheck; next?: CircuitState } {
  if (state.openUntil === 0) return { check: { verdict: 'closed', failures: state.failures, retryInMs: 0 } };
  if (now < state.openUntil) return { check: { verdict: 'open', failures: state.failures, retryInMs: state.openUntil - now } };
  const next = { ...state, probing: true, openUntil: now + Math.max(state.cooldownMs, probeHoldMs) };
  return { check: { verdict: 'probe', failures: state.failures, retryInMs: 0 }, next };
}

/** The state after one more failure. */
export function failCircuit(state: CircuitState, rule: CircuitRule, now: number): CircuitState {
  const failures = state.failures + 1;
  const longer = () => Math.min(rule.maxCooldownMs, Math.max(state.cooldownMs, 1) * 2);
  // The probe failed, or an open period ended without one: still down, open again for longer.
  if (state.probing || (state.openUntil > 0 && now >= state.openUntil)) {
    const cooldownMs = longer();
    return { failures, openUntil: now + cooldownMs, cooldownMs, probing: false };
  }
  // Already open (a call that started before it opened, or one sent while every target was open).
  if (state.openUntil > 0) return { ...state, failures };
  if (failures >= rule.threshold) return { failures, openUntil: now + rule.cooldownMs, cooldownMs: rule.cooldownMs, probing: false };
  return { failures, openUntil: 0, cooldownMs: 0, probing: false };
}
