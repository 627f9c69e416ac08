/**
 * Fail-open wrapper: the shared (Redis) store while it answers, the local (memory) store while it
 * does not. A Redis outage then degrades limits to per-instance ones instead of failing requests,
 * the same choice as Kong's and Envoy's rate limiters with `fault_tolerant`/failure-mode-allow.
 */
import type { StateStore } from './types.ts';

/**
 * Wraps `primary` so that every call falls back to `fallback` while primary is down. An outage is
 * logged once (and its end once); `healthy` is false meanwhile. A `TypeError` (a caller bug, such
 * as an invalid rule) is rethrown rather than hidden behind the fallback.
 * @example const store = createResilientStore(await createRedisStore(url), createMemoryStore(), logger.warn);
 */
export function createResilientStore(
  primary: StateStore,
  fallback: StateStore,
  log: (message: string) => void = () => {},
): StateStore {
  let degraded = false;

  function markDown(reason: string): void {
    if (degraded) return;
    degraded = true;
    log(`shared state store (${primary.kind}) unavailable, using local state: ${reason}`);
  }

  function markUp(): void {
    if (!degraded) return;
    degraded = false;
    log(`shared state store (${primary.kind}) available again`);
  }

  async function call<T>(use: (store: StateStore) => Promise<T>): Promise<T> {
    // Known down: skip the doomed round trip (no I/O, no timeout wait).
    if (!primary.healthy) {
      markDown('not connected');
      return use(fallback);
    }
    try {
      const result = await use(primary);
      markUp();
      return result;
    } catch (error) {
      if (error instanceof TypeError) throw error;
      markDown(error instanceof Error ? error.message : String(error));
      return use(fallback);
    }
  }

  return {
    get kind() {
      return primary.kind;
    },
    get healthy() {
      return primary.healthy && !degraded;
    },
    get: (key) => call((s) => s.get(key)),
    set: (key, value, ttlMs) => call((s) => s.set(key, value, ttlMs)),
    del: (key) => call((s) => s.del(key)),
    incrBy: (key, delta) => call((s) => s.incrBy(key, delta)),
    getCounters: (keys) => call((s) => s.getCounters(keys)),
    admit: (rates, quotas) => call((s) => s.admit(rates, quotas)),
    acquire: (key, max, ttlMs) => call((s) => s.acquire(key, max, ttlMs)),
    async release(key, leaseId) {
      // The lease may come from either side of an outage: the unknown side ignores the id.
      await Promise.all([call((s) => s.release(key, leaseId)), fallback.release(key, leaseId)]);
    },
    circuitCheck: (key, probeHoldMs, ttlMs) => call((s) => s.circuitCheck(key, probeHoldMs, ttlMs)),
    circuitFailure: (key, rule) => call((s) => s.circuitFailure(key, rule)),
    publish: (channel, message) => call((s) => s.publish(channel, message)),
    async subscribe(channel, onMessage) {
      // Listen on both: messages come over Redis normally, and locally when published in an outage.
      const local = await fallback.subscribe(channel, onMessage);
      let shared: (() => Promise<void>) | undefined;
      try {
        shared = await primary.subscribe(channel, onMessage);
      } catch (error) {
        markDown(error instanceof Error ? error.message : String(error));
      }
      return async () => {
        await Promise.all([local(), shared?.().catch(() => {})]);
      };
    },
    async ping() {
      const ms = await primary.ping();
      markUp();
      return ms;
    },
    async close() {
      await Promise.all([primary.close(), fallback.close()]);
    },
  };
}
