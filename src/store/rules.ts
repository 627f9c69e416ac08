/**
 * Input checks shared by every store, so memory and Redis reject the same mistakes the same way
 * (Redis would otherwise fail inside a Lua script with a less helpful message).
 */
import type { QuotaRule, RateRule } from './types.ts';

/**
 * Throws a `TypeError` for an integer counter delta Redis would refuse (`INCRBY` takes integers).
 * A `TypeError` marks a caller bug: the resilient store rethrows it instead of failing over.
 */
export function assertInteger(value: number, what: string): void {
  if (!Number.isSafeInteger(value)) throw new TypeError(`${what} must be a safe integer, got ${value}`);
}

/** Throws a `TypeError` when a rule cannot be evaluated (non-numeric limit, window not > 0, ...). */
export function assertRules(rates: readonly RateRule[], quotas: readonly QuotaRule[]): void {
  for (const rule of rates) {
    if (typeof rule.key !== 'string' || rule.key === '') throw new TypeError('rate rule needs a key');
    if (!Number.isFinite(rule.limit)) throw new TypeError(`rate rule ${rule.key}: limit must be a number`);
    if (!(rule.windowMs > 0) || !Number.isFinite(rule.windowMs)) {
      throw new TypeError(`rate rule ${rule.key}: windowMs must be > 0`);
    }
  }
  for (const rule of quotas) {
    if (typeof rule.key !== 'string' || rule.key === '') throw new TypeError('quota rule needs a key');
    if (!Number.isFinite(rule.limit)) throw new TypeError(`quota rule ${rule.key}: limit must be a number`);
    assertInteger(rule.reserve, `quota rule ${rule.key}: reserve`);
    if (rule.ttlMs !== undefined && !(rule.ttlMs >= 0 && Number.isFinite(rule.ttlMs))) {
      throw new TypeError(`quota rule ${rule.key}: ttlMs must be >= 0`);
    }
  }
}

/** Validates a lease request (same reasons as above). */
export function assertLease(key: string, max: number, ttlMs: number): void {
  if (typeof key !== 'string' || key === '') throw new TypeError('lease needs a key');
  if (!Number.isFinite(max)) throw new TypeError(`lease ${key}: max must be a number`);
  if (!(ttlMs > 0) || !Number.isFinite(ttlMs)) throw new TypeError(`lease ${key}: ttlMs must be > 0`);
}

/** A stored counter as a number: missing or not an integer reads as 0 (as `getCounters` promises). */
export function parseCounter(raw: string | null | undefined): number {
  if (raw === null || raw === undefined) return 0;
  const value = Number(raw);
  return Number.isSafeInteger(value) ? value : 0;
}
