/**
 * The one behavioural suite every StateStore must pass. memory.test.ts and redis.test.ts run it,
 * so the embedded store and the Redis store cannot drift apart.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StateStore } from './types.ts';

/** What a suite run needs from one implementation. */
export interface StoreHarness {
  store: StateStore;
  /** Lets `ms` pass for the store: moves a fake clock, or sleeps when the store uses real time. */
  advance(ms: number): Promise<void>;
}

/** Subscribes to `channel`; `message` resolves with the first message, or rejects after `ms`. */
async function nextMessage(store: StateStore, channel: string, ms = 2000) {
  let received: (message: string) => void = () => {};
  const message = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no message on ${channel} within ${ms} ms`)), ms);
    received = (m) => {
      clearTimeout(timer);
      resolve(m);
    };
  });
  const stop = await store.subscribe(channel, (m) => received(m));
  return { message, stop };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Registers the shared StateStore tests under `describe(name)`. `factory` runs before each test;
 * the store it returns is closed after it.
 */
export function defineStoreSuite(name: string, factory: () => Promise<StoreHarness>): void {
  describe(`${name} store (shared suite)`, () => {
    let store: StateStore;
    let advance: (ms: number) => Promise<void>;
    // Fresh keys per test, so a store shared across tests (Redis) never sees another test's state.
    const key = (area: string) => `gw:${area}:${randomUUID()}`;

    beforeEach(async () => {
      ({ store, advance } = await factory());
    });
    afterEach(async () => {
      await store.close();
    });

    it('is healthy and answers ping with a latency', async () => {
      expect(store.healthy).toBe(true);
      const ms = await store.ping();
      expect(ms).toBeGreaterThanOrEqual(0);
      expect(ms).toBeLessThan(1000);
    });

    it('sets, gets and deletes values; missing keys read as null', async () => {
      const k = key('kv');
      expect(await store.get(k)).toBeNull();
      await store.set(k, 'one');
      expect(await store.get(k)).toBe('one');
      await store.set(k, 'two');
      expect(await store.get(k)).toBe('two');
      await store.del(k);
      expect(await store.get(k)).toBeNull();
      await store.del(k);
    });

    it('expires a value after its ttl and keeps values without one', async () => {
      const short = key('kv');
      const kept = key('kv');
      await store.set(short, 'v', 200);
      await store.set(kept, 'v', 0);
      expect(await store.get(short)).toBe('v');
      await advance(300);
      expect(await store.get(short)).toBeNull();
      expect(await store.get(kept)).toBe('v');
    });

    it('lists the keys of plain values under a prefix, taken literally, without expired or deleted ones', async () => {
      const area = `gw:keys:${randomUUID()}`;
      await store.set(`${area}:a`, '1');
      await store.set(`${area}:b`, '2', 200);
      await store.set(`${area}:gone`, '3');
      await store.del(`${area}:gone`);
      await store.set(`${area}x:other`, '4');
      await store.set(`${area.replace('keys', 'k*ys')}:glob`, '5');
      expect((await store.keys(`${area}:`)).sort()).toEqual([`${area}:a`, `${area}:b`]);
      expect(await store.keys(`${area.replace('keys', 'k*ys')}:`)).toEqual([`${area.replace('keys', 'k*ys')}:glob`]);
      await advance(300);
      expect(await store.keys(`${area}:`)).toEqual([`${area}:a`]);
    });

    it('compares and sets: takes an absent key, replaces or deletes only the expected value', async () => {
      const k = key('cas');
      expect(await store.compareAndSet(k, null, 'one', 200)).toBe(true);
      expect(await store.compareAndSet(k, null, 'other', 200)).toBe(false);
      expect(await store.compareAndSet(k, 'two', 'other')).toBe(false);
      expect(await store.get(k)).toBe('one');
      // Renewed: the ttl starts again from now.
      await advance(150);
      expect(await store.compareAndSet(k, 'one', 'one', 200)).toBe(true);
      await advance(150);
      expect(await store.get(k)).toBe('one');
      expect(await store.compareAndSet(k, 'other', null)).toBe(false);
      expect(await store.compareAndSet(k, 'one', null)).toBe(true);
      expect(await store.get(k)).toBeNull();
      // Expired is absent: free to take again.
      expect(await store.compareAndSet(k, null, 'three', 100)).toBe(true);
      await advance(200);
      expect(await store.compareAndSet(k, null, 'four')).toBe(true);
      expect(await store.get(k)).toBe('four');
    });

    it('lets exactly one of many parallel callers take an absent key', async () => {
      const k = key('cas');
      const taken = await Promise.all(Array.from({ length: 20 }, (_, i) => store.compareAndSet(k, null, `token-${i}`, 10_000)));
      expect(taken.filter(Boolean)).toHaveLength(1);
      expect(await store.get(k)).toBe(`token-${taken.indexOf(true)}`);
    });

    it('increments counters atomically and reads them back, missing ones as 0', async () => {
      const a = key('ctr');
      const b = key('ctr');
      expect(await store.incrBy(a, 5)).toBe(5);
      expect(await store.incrBy(a, -2)).toBe(3);
      expect(await store.get(a)).toBe('3');
      await Promise.all(Array.from({ length: 20 }, () => store.incrBy(b, 1)));
      expect(await store.getCounters([a, key('ctr'), b])).toEqual([3, 0, 20]);
      expect(await store.getCounters([])).toEqual([]);
      await expect(store.incrBy(a, 1.5)).rejects.toThrow(TypeError);
    });

    it('admits up to the limit, then refuses with resetMs until the window slides', async () => {
      const rule = { key: key('rl'), limit: 2, windowMs: 500 };
      const first = await store.admit([rule], []);
      expect(first).toEqual({ allowed: true, rates: [{ key: rule.key, limit: 2, remaining: 1, resetMs: 0, clearMs: 500 }] });
      await advance(250);
      const second = await store.admit([rule], []);
      expect(second.allowed).toBe(true);
      expect(second.rates[0]!.remaining).toBe(0);
      // The oldest hit (250 ms old) frees its slot in about 250 ms.
      expect(second.rates[0]!.resetMs).toBeGreaterThan(0);
      expect(second.rates[0]!.resetMs).toBeLessThanOrEqual(250);

      const refused = await store.admit([rule], []);
      expect(refused.allowed).toBe(false);
      expect(refused.refusedBy).toEqual({ kind: 'rate', index: 0 });
      expect(refused.rates[0]!.remaining).toBe(0);
      expect(refused.rates[0]!.resetMs).toBeGreaterThan(0);
      expect(refused.rates[0]!.resetMs).toBeLessThanOrEqual(250);

      // 550 ms after the first hit: it has left the window, the second (300 ms old) has not. Had
      // the refused attempt been recorded, the window would still be full.
      await advance(300);
      const again = await store.admit([rule], []);
      expect(again.allowed).toBe(true);
      expect(again.rates[0]!.remaining).toBe(0);
      expect((await store.admit([rule], [])).allowed).toBe(false);
    });

    it('reports clearMs, the time until the newest counted hit leaves the window, whenever a hit is counted', async () => {
      const rule = { key: key('rl'), limit: 3, windowMs: 500 };
      const first = await store.admit([rule], []);
      // Slots remain (resetMs 0), but the window is empty again only once this hit has left it.
      expect(first.rates[0]).toEqual({ key: rule.key, limit: 3, remaining: 2, resetMs: 0, clearMs: 500 });
      await advance(200);
      expect((await store.admit([rule], [])).rates[0]).toMatchObject({ remaining: 1, resetMs: 0, clearMs: 500 });
      await advance(100);
      const full = (await store.admit([rule], [])).rates[0]!;
      expect(full).toMatchObject({ remaining: 0, clearMs: 500 });
      // The first hit (300 ms old) frees the next slot in about 200 ms.
      expect(full.resetMs).toBeGreaterThan(0);
      expect(full.resetMs).toBeLessThanOrEqual(200);

      const refused = (await store.admit([rule], [])).rates[0]!;
      expect(refused.resetMs).toBeGreaterThan(0);
      expect(refused.resetMs).toBeLessThanOrEqual(200);
      // Not recorded: the newest counted hit is still the third one.
      expect(refused.clearMs).toBeGreaterThan(400);
      expect(refused.clearMs).toBeLessThanOrEqual(500);

      // A window that holds no hit is already clear.
      const other = { key: key('rl'), limit: 2, windowMs: 500 };
      const blocked = await store.admit([other, rule], []);
      expect(blocked.refusedBy).toEqual({ kind: 'rate', index: 1 });
      expect(blocked.rates[0]).toEqual({ key: other.key, limit: 2, remaining: 2, resetMs: 0, clearMs: 0 });
    });

    it('treats a rate rule with limit 0 as unlimited', async () => {
      const rule = { key: key('rl'), limit: 0, windowMs: 1000 };
      for (let i = 0; i < 5; i++) expect((await store.admit([rule], [])).allowed).toBe(true);
    });

    it('refuses when a quota is used up (used >= limit) and changes nothing', async () => {
      const q = key('quota');
      await store.incrBy(q, 100);
      const result = await store.admit([], [{ key: q, limit: 100, reserve: 10 }]);
      expect(result).toEqual({
        allowed: false,
        rates: [],
        refusedBy: { kind: 'quota', key: q, used: 100, limit: 100 },
      });
      expect(await store.getCounters([q])).toEqual([100]);
      // limit 0 means no quota: admitted, and the usage still counted.
      expect((await store.admit([], [{ key: q, limit: 0, reserve: 10 }])).allowed).toBe(true);
      expect(await store.getCounters([q])).toEqual([110]);
    });

    it('reserves each admitted quota amount and refuses once the reservations reach the limit', async () => {
      const q = key('quota');
      const rule = { key: q, limit: 50, reserve: 30 };
      expect((await store.admit([], [rule])).allowed).toBe(true);
      expect(await store.getCounters([q])).toEqual([30]);
      // 30 < 50: still admitted (the quota refuses only once used >= limit).
      expect((await store.admit([], [rule])).allowed).toBe(true);
      const third = await store.admit([], [rule]);
      expect(third.refusedBy).toEqual({ kind: 'quota', key: q, used: 60, limit: 50 });
      // Settlement of the real usage later is a plain incrBy of the difference.
      expect(await store.incrBy(q, -30 + 12)).toBe(42);
    });

    it('expires a quota counter ttlMs after it was first counted, not after each reservation', async () => {
      const rule = { key: key('quota'), limit: 100, reserve: 10, ttlMs: 300 };
      expect((await store.admit([], [rule])).allowed).toBe(true);
      await advance(200);
      expect((await store.admit([], [rule])).allowed).toBe(true);
      expect(await store.incrBy(rule.key, -5)).toBe(15);
      expect(await store.getCounters([rule.key])).toEqual([15]);
      await advance(150);
      // 350 ms after the first count: gone, although the last reservation was 150 ms ago.
      expect(await store.getCounters([rule.key])).toEqual([0]);
      // A counter without ttlMs never expires.
      const lasting = { key: key('quota'), limit: 0, reserve: 4 };
      await store.admit([], [lasting]);
      await advance(400);
      expect(await store.getCounters([lasting.key])).toEqual([4]);
    });

    it('checks several rules atomically: one refusing leaves every other untouched', async () => {
      const full = { key: key('rl'), limit: 1, windowMs: 60_000 };
      const open = { key: key('rl'), limit: 5, windowMs: 60_000 };
      const quota = { key: key('quota'), limit: 1000, reserve: 7 };
      expect((await store.admit([full], [])).allowed).toBe(true);

      const refused = await store.admit([open, full], [quota]);
      expect(refused.allowed).toBe(false);
      expect(refused.refusedBy).toEqual({ kind: 'rate', index: 1 });
      expect(refused.rates.map((r) => r.remaining)).toEqual([5, 0]);
      expect(await store.getCounters([quota.key])).toEqual([0]);

      const exhausted = { key: key('quota'), limit: 10, reserve: 1 };
      await store.incrBy(exhausted.key, 10);
      const byQuota = await store.admit([open], [quota, exhausted]);
      expect(byQuota.refusedBy).toEqual({ kind: 'quota', key: exhausted.key, used: 10, limit: 10 });
      expect(await store.getCounters([quota.key, exhausted.key])).toEqual([0, 10]);

      // The open window saw none of the refused attempts: 5 slots remain, one now taken.
      const ok = await store.admit([open], [quota]);
      expect(ok).toEqual({ allowed: true, rates: [{ key: open.key, limit: 5, remaining: 4, resetMs: 0, clearMs: 60_000 }] });
      expect(await store.getCounters([quota.key])).toEqual([7]);
    });

    it('never admits more than the limit under 50 parallel calls', async () => {
      const rule = { key: key('rl'), limit: 10, windowMs: 60_000 };
      const quota = { key: key('quota'), limit: 0, reserve: 3 };
      const results = await Promise.all(Array.from({ length: 50 }, () => store.admit([rule], [quota])));
      expect(results.filter((r) => r.allowed)).toHaveLength(10);
      expect(results.filter((r) => !r.allowed).every((r) => r.refusedBy?.kind === 'rate')).toBe(true);
      expect(await store.getCounters([quota.key])).toEqual([30]);
    });

    it('leases at most max slots, frees them on release and after their ttl', async () => {
      const k = key('conc');
      const a = await store.acquire(k, 2, 300);
      const b = await store.acquire(k, 2, 300);
      expect(a).toEqual(expect.any(String));
      expect(b).toEqual(expect.any(String));
      expect(a).not.toBe(b);
      expect(await store.acquire(k, 2, 300)).toBeNull();
      await store.release(k, a!);
      await store.release(k, 'not-a-lease');
      const c = await store.acquire(k, 2, 300);
      expect(c).toEqual(expect.any(String));
      expect(await store.acquire(k, 2, 300)).toBeNull();
      // A crashed holder never releases: its lease expires on its own.
      await advance(400);
      expect(await store.acquire(k, 2, 300)).toEqual(expect.any(String));
      expect(await store.acquire(k, 2, 300)).toEqual(expect.any(String));
      expect(await store.acquire(k, 2, 300)).toBeNull();
    });

    it('hands out exactly max leases to parallel callers', async () => {
      const k = key('conc');
      const leases = await Promise.all(Array.from({ length: 20 }, () => store.acquire(k, 5, 10_000)));
      expect(leases.filter((l) => l !== null)).toHaveLength(5);
    });

    it('counts parallel circuit failures without losing one and opens at the threshold', async () => {
      const k = key('breaker');
      const rule = { threshold: 30, cooldownMs: 200, maxCooldownMs: 400, ttlMs: 10_000 };
      expect(await store.circuitCheck(k, 100, 10_000)).toEqual({ verdict: 'closed', failures: 0, retryInMs: 0 });
      await Promise.all(Array.from({ length: 29 }, () => store.circuitFailure(k, rule)));
      expect(await store.circuitCheck(k, 100, 10_000)).toMatchObject({ verdict: 'closed', failures: 29 });
      const opened = await store.circuitFailure(k, rule);
      expect(opened).toMatchObject({ failures: 30, cooldownMs: 200, probing: false });
      const open = await store.circuitCheck(k, 100, 10_000);
      expect(open.verdict).toBe('open');
      expect(open.retryInMs).toBeGreaterThan(0);
      expect(open.retryInMs).toBeLessThanOrEqual(200);
    });

    it('lets exactly one parallel caller probe a circuit whose period is over; its failure doubles the period', async () => {
      const k = key('breaker');
      const rule = { threshold: 1, cooldownMs: 100, maxCooldownMs: 150, ttlMs: 10_000 };
      await store.circuitFailure(k, rule);
      await advance(120);
      const checks = await Promise.all(Array.from({ length: 10 }, () => store.circuitCheck(k, 50, 10_000)));
      expect(checks.filter((c) => c.verdict === 'probe')).toHaveLength(1);
      expect(checks.filter((c) => c.verdict === 'open')).toHaveLength(9);
      expect(await store.circuitFailure(k, rule)).toMatchObject({ cooldownMs: 150, probing: false }); // doubled, capped
    });

    it('delivers published messages to every subscriber until it unsubscribes', async () => {
      const channel = key('bus');
      const one = await nextMessage(store, channel);
      const two = await nextMessage(store, channel);
      await store.publish(channel, 'hello');
      expect(await one.message).toBe('hello');
      expect(await two.message).toBe('hello');
      await one.stop();

      const seen: string[] = [];
      const stopThree = await store.subscribe(channel, (m) => seen.push(m));
      const later = await nextMessage(store, channel);
      await store.publish(channel, 'again');
      expect(await later.message).toBe('again');
      await stopThree();
      await store.publish(channel, 'after');
      await sleep(50);
      expect(seen).toEqual(['again']);
      await Promise.all([two.stop(), later.stop()]);
    });
  });
}
