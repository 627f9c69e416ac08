/**
 * The embedded default store: everything in this process. Same semantics as the Redis store (the
 * shared suite in store-suite.ts runs against both), so a single instance needs no Redis at all.
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { LRUCache } from 'lru-cache';
import { checkCircuit, failCircuit, parseCircuit } from './circuit.ts';
import type { DurableFile } from './durable-file.ts';
import { isDurableKey } from './durable-keys.ts';
import { assertInteger, assertLease, assertRules, parseCounter } from './rules.ts';
import type { AdmitResult, QuotaRule, RateRule, RateState, StateStore } from './types.ts';

export interface MemoryStoreOptions {
  /** Clock in ms (default `Date.now`); tests inject a fake one to move time deterministically. */
  now?: () => number;
  /** Bound on plain values and on sliding windows each (least recently used go first). */
  maxEntries?: number;
  /**
   * Where durable values (durable-keys.ts) are kept across restarts: loaded at creation, written
   * on every change. Without it they still live apart from the bounded cache, never evicted.
   */
  durable?: DurableFile;
}

/**
 * Creates the in-process store.
 * @example const store = createMemoryStore(); await store.admit([{ key: 'gw:rl:k1:60000', limit: 60, windowMs: 60_000 }], []);
 */
export function createMemoryStore(options: MemoryStoreOptions = {}): StateStore {
  const now = options.now ?? Date.now;
  const max = options.maxEntries ?? 100_000;
  // An injected clock must drive TTLs too; ttlResolution 0 stops lru-cache caching "now" for 1 ms.
  const clock = options.now ? { perf: { now }, ttlResolution: 0 } : {};
  // Bounded by `maxSize` (each entry counting 1) rather than `max`: with `max` lru-cache allocates
  // its index arrays for every entry up front (~2.4 MiB per cache at 100,000), resident from start.
  const bound = { maxSize: max, sizeCalculation: () => 1, ...clock };
  const values = new LRUCache<string, string>(bound);
  // Hit times per window key, oldest first. The entry's TTL is its window: once it passes with no
  // new hit every timestamp in it is stale anyway, so dropping the whole array is exact.
  const windows = new LRUCache<string, number[]>(bound);
  // Counters (quotas, usage) are never evicted: losing one would silently reset a budget. Only a
  // periodic budget's counter expires (at its own time, as on Redis); expired ones are swept now and then.
  const counters = new Map<string, number>();
  const counterExpiry = new Map<string, number>();
  let nextSweep = 0;
  const leases = new Map<string, Map<string, number>>();
  const bus = new EventEmitter().setMaxListeners(0);
  // Durable values: expiry in epoch ms, 0 for none. Expired ones go when read, and in a sweep.
  const pinned = new Map<string, { value: string; expiresAt: number }>();
  for (const { key, value, expiresAt } of options.durable?.load(now()) ?? []) pinned.set(key, { value, expiresAt });
  let nextPinnedSweep = 0;

  function pinnedValue(key: string): string | undefined {
    const entry = pinned.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt === 0 || entry.expiresAt > now()) return entry.value;
    unpin(key);
    return undefined;
  }

  function pin(key: string, value: string, ttlMs: number | undefined): void {
    const t = now();
    const expiresAt = ttlMs && ttlMs > 0 ? t + Math.ceil(ttlMs) : 0;
    pinned.set(key, { value, expiresAt });
    options.durable?.put({ key, value, expiresAt });
    if (t < nextPinnedSweep) return;
    nextPinnedSweep = t + 60_000;
    for (const [k, entry] of pinned) if (entry.expiresAt !== 0 && entry.expiresAt <= t) unpin(k);
  }

  function unpin(key: string): void {
    if (pinned.delete(key)) options.durable?.remove(key);
  }

  function dropCounter(key: string): void {
    counters.delete(key);
    counterExpiry.delete(key);
  }

  /** Drops expired counters: the one asked for at once, all of them at most once a minute. */
  function expireCounters(key: string, t: number): void {
    const at = counterExpiry.get(key);
    if (at !== undefined && at <= t) dropCounter(key);
    if (t < nextSweep) return;
    nextSweep = t + 60_000;
    for (const [k, expiresAt] of counterExpiry) if (expiresAt <= t) dropCounter(k);
  }

  /** A counter's value; like Redis INCRBY it also accepts a plain value holding an integer. */
  function counterOf(key: string): number {
    expireCounters(key, now());
    const held = counters.get(key);
    if (held !== undefined) return held;
    const raw = values.get(key) ?? pinnedValue(key);
    if (raw === undefined) return 0;
    const parsed = Number(raw);
    if (!Number.isSafeInteger(parsed)) throw new Error(`value of ${key} is not an integer`);
    return parsed;
  }

  function add(key: string, delta: number): number {
    const next = counterOf(key) + delta;
    values.delete(key);
    unpin(key);
    counters.set(key, next);
    return next;
  }

  /** The live hits of a window, pruned in place of those at or before `cutoff`. */
  function liveHits(key: string, cutoff: number): number[] {
    const hits = windows.get(key);
    if (!hits) return [];
    let stale = 0;
    while (stale < hits.length && hits[stale]! <= cutoff) stale++;
    if (stale > 0) hits.splice(0, stale);
    return hits;
  }

  function firstQuotaRefusal(quotas: readonly QuotaRule[]): AdmitResult['refusedBy'] {
    for (const rule of quotas) {
      if (rule.limit <= 0) continue;
      const used = counterOf(rule.key);
      if (used >= rule.limit) return { kind: 'quota', key: rule.key, used, limit: rule.limit };
    }
    return undefined;
  }

  function admitNow(rates: readonly RateRule[], quotas: readonly QuotaRule[]): AdmitResult {
    const t = now();
    // Same precedence as the Lua script: quotas first, then the first full window.
    let refusedBy = firstQuotaRefusal(quotas);
    const hitsPerRule = rates.map((rule, index) => {
      if (rule.limit <= 0) return [];
      const hits = liveHits(rule.key, t - rule.windowMs);
      if (!refusedBy && hits.length >= rule.limit) refusedBy = { kind: 'rate', index };
      return hits;
    });
    const allowed = refusedBy === undefined;
    const states = rates.map((rule, i): RateState => {
      if (rule.limit <= 0) return { key: rule.key, limit: rule.limit, remaining: 0, resetMs: 0, clearMs: 0 };
      const hits = hitsPerRule[i]!;
      if (allowed) {
        hits.push(t);
        windows.set(rule.key, hits, { ttl: Math.ceil(rule.windowMs) });
      }
      const remaining = Math.max(0, rule.limit - hits.length);
      // A slot frees when the oldest hit leaves the window; the window is clear when the newest does.
      const leaves = (hit: number) => Math.max(1, Math.ceil(hit + rule.windowMs - t));
      const resetMs = remaining > 0 ? 0 : leaves(hits[0]!);
      const clearMs = hits.length ? leaves(hits[hits.length - 1]!) : 0;
      return { key: rule.key, limit: rule.limit, remaining, resetMs, clearMs };
    });
    if (allowed) {
      for (const rule of quotas) {
        if (rule.reserve === 0) continue;
        add(rule.key, rule.reserve);
        if (rule.ttlMs && !counterExpiry.has(rule.key)) counterExpiry.set(rule.key, t + Math.ceil(rule.ttlMs));
      }
    }
    return refusedBy ? { allowed, rates: states, refusedBy } : { allowed, rates: states };
  }

  /** A plain value (a counter reads as its number), or null. */
  function valueOf(key: string): string | null {
    const raw = values.get(key) ?? pinnedValue(key);
    if (raw !== undefined) return raw;
    expireCounters(key, now());
    const counter = counters.get(key);
    return counter === undefined ? null : String(counter);
  }

  function setValue(key: string, value: string, ttlMs: number | undefined): void {
    dropCounter(key);
    if (isDurableKey(key)) pin(key, value, ttlMs);
    else values.set(key, value, { ttl: ttlMs && ttlMs > 0 ? Math.ceil(ttlMs) : 0 });
  }

  function acquireNow(key: string, maxHeld: number, ttlMs: number): string | null {
    const t = now();
    const held = leases.get(key) ?? new Map<string, number>();
    for (const [id, expiresAt] of held) if (expiresAt <= t) held.delete(id);
    if (held.size >= maxHeld) {
      if (held.size === 0) leases.delete(key);
      return null;
    }
    const id = randomUUID();
    held.set(id, t + ttlMs);
    leases.set(key, held);
    return id;
  }

  return {
    kind: 'memory',
    healthy: true,
    async get(key) {
      return valueOf(key);
    },
    async keys(prefix) {
      const found: string[] = [];
      for (const key of [...values.keys()]) if (key.startsWith(prefix) && values.has(key)) found.push(key);
      for (const key of [...pinned.keys()]) if (key.startsWith(prefix) && pinnedValue(key) !== undefined) found.push(key);
      return found;
    },
    async set(key, value, ttlMs) {
      setValue(key, value, ttlMs);
    },
    async compareAndSet(key, expected, value, ttlMs) {
      // No await between the read and the write: atomic, as the Lua script is on Redis.
      if (valueOf(key) !== expected) return false;
      if (value !== null) setValue(key, value, ttlMs);
      else {
        values.delete(key);
        unpin(key);
        dropCounter(key);
      }
      return true;
    },
    async del(key) {
      values.delete(key);
      unpin(key);
      dropCounter(key);
      windows.delete(key);
      leases.delete(key);
    },
    async incrBy(key, delta) {
      assertInteger(delta, 'incrBy delta');
      return add(key, delta);
    },
    async getCounters(keys) {
      const t = now();
      return keys.map((key) => {
        expireCounters(key, t);
        return counters.get(key) ?? parseCounter(values.get(key));
      });
    },
    async admit(rates, quotas) {
      assertRules(rates, quotas);
      return admitNow(rates, quotas);
    },
    async acquire(key, maxHeld, ttlMs) {
      assertLease(key, maxHeld, ttlMs);
      return acquireNow(key, maxHeld, ttlMs);
    },
    async release(key, leaseId) {
      const held = leases.get(key);
      if (held?.delete(leaseId) && held.size === 0) leases.delete(key);
    },
    async publish(channel, message) {
      // Delivered later, as over Redis, so no caller comes to rely on synchronous delivery.
      queueMicrotask(() => bus.emit(channel, message));
    },
    async subscribe(channel, onMessage) {
      const listener = (message: string) => {
        // One subscriber's bug must not stop delivery to the others; subscribers log their own.
        try {
          onMessage(message);
        } catch {
          /* ignored on purpose, see above */
        }
      };
      bus.on(channel, listener);
      return async () => {
        bus.off(channel, listener);
      };
    },
    async circuitCheck(key, probeHoldMs, ttlMs) {
      const { check, next } = checkCircuit(parseCircuit(values.get(key)), now(), probeHoldMs);
      if (next) values.set(key, JSON.stringify(next), { ttl: Math.ceil(ttlMs) });
      return check;
    },
    async circuitFailure(key, rule) {
      const next = failCircuit(parseCircuit(values.get(key)), rule, now());
      values.set(key, JSON.stringify(next), { ttl: Math.ceil(rule.ttlMs) });
      return next;
    },
    async ping() {
      return 0;
    },
    async close() {
      options.durable?.close();
      pinned.clear();
      values.clear();
      windows.clear();
      counters.clear();
      counterExpiry.clear();
      leases.clear();
      bus.removeAllListeners();
    },
  };
}
