/**
 * Fail-open wrapper: the shared (Redis) store while it answers, the local (memory) store while it
 * does not. A Redis outage then degrades limits to per-instance ones instead of failing requests,
 * the same choice as Kong's and Envoy's rate limiters with `fault_tolerant`/failure-mode-allow.
 *
 * Like a circuit breaker: a failed call (a closed socket, or a hung Redis that lets a command
 * time out) opens it, and every call goes to the local store at once, with no I/O and no wait,
 * while a background probe (one PING at a time, every `coolDownMs`) watches for Redis to answer
 * again. Without this a hung Redis, whose socket still looks ready, would cost every request a
 * full command timeout for as long as it stays hung.
 */
import type { StateStore } from './types.ts';

export interface ResilientStoreOptions {
  /**
   * After a failure, how long calls stay on the local store before the first probe, and between
   * probes while Redis does not answer (default 1000). A probe that hangs is bounded by the
   * primary's own command timeout.
   */
  coolDownMs?: number;
}

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
  options: ResilientStoreOptions = {},
): StateStore {
  const coolDownMs = options.coolDownMs ?? 1000;
  let degraded = false;
  let closed = false;
  /** The next probe's timer, and whether its PING is in flight: one probe at a time. */
  let probe: NodeJS.Timeout | undefined;
  let probing = false;

  function markDown(reason: string): void {
    if (!degraded) {
      degraded = true;
      log(`shared state store (${primary.kind}) unavailable, using local state: ${reason}`);
    }
    scheduleProbe();
  }

  function markUp(): void {
    if (!degraded) return;
    degraded = false;
    clearTimeout(probe);
    probe = undefined;
    log(`shared state store (${primary.kind}) available again`);
  }

  function scheduleProbe(): void {
    if (probe || probing || closed) return;
    probe = setTimeout(async () => {
      probe = undefined;
      probing = true;
      // A closed socket is known down without I/O (the client reconnects by itself meanwhile).
      const answered = primary.healthy && (await primary.ping().then(() => true, () => false));
      probing = false;
      if (answered) markUp();
      else if (degraded) scheduleProbe();
    }, coolDownMs);
    // Never what keeps a process alive.
    probe.unref();
  }

  async function call<T>(use: (store: StateStore) => Promise<T>): Promise<T> {
    // Known down, or failed lately and not answering a probe since: skip the doomed round trip.
    if (!primary.healthy) markDown('not connected');
    if (degraded) return use(fallback);
    try {
      return await use(primary);
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
    keys: (prefix) => call((s) => s.keys(prefix)),
    compareAndSet: (key, expected, value, ttlMs) => call((s) => s.compareAndSet(key, expected, value, ttlMs)),
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
      // An explicit check (the health endpoint) always asks Redis, and ends an outage it sees over.
      const ms = await primary.ping();
      markUp();
      return ms;
    },
    async close() {
      closed = true;
      clearTimeout(probe);
      probe = undefined;
      await Promise.all([primary.close(), fallback.close()]);
    },
  };
}
