import { describe, expect, it } from 'vitest';
import { createMemoryStore } from './memory.ts';
import { createResilientStore } from './resilient.ts';
import type { StateStore } from './types.ts';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A memory store standing in for Redis, which can be switched off: calls then throw, or, `hung`,
 * take `timeoutMs` and then fail as an ioredis command timeout does (the socket still looks ready).
 */
function switchable(timeoutMs = 200) {
  const inner = createMemoryStore();
  const state = { up: true, healthy: true, hung: false, calls: 0, pings: 0, pingsInFlight: 0, maxPingsInFlight: 0 };
  const primary = new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'kind') return 'redis';
      if (prop === 'healthy') return state.healthy;
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function' || prop === 'close') return value;
      return async (...args: unknown[]) => {
        const ping = prop === 'ping';
        if (ping) {
          state.pings++;
          state.maxPingsInFlight = Math.max(state.maxPingsInFlight, ++state.pingsInFlight);
        } else state.calls++;
        try {
          if (state.hung) {
            await sleep(timeoutMs);
            throw new Error('Command timed out');
          }
          if (!state.up) throw new Error('Connection is closed.');
          return await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        } finally {
          if (ping) state.pingsInFlight--;
        }
      };
    },
  }) as StateStore;
  return { primary, inner, state };
}

/** Resolves once `check()` holds, polling every 5 ms; fails after `limitMs`. */
async function until(check: () => boolean, limitMs = 2000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${limitMs} ms`);
    await sleep(5);
  }
}

const rule = { key: 'gw:rl:k', limit: 1, windowMs: 60_000 };

describe('resilient store', () => {
  it('uses the primary while it answers', async () => {
    const { primary, inner } = switchable();
    const local = createMemoryStore();
    const store = createResilientStore(primary, local);
    expect((await store.admit([rule], [])).allowed).toBe(true);
    expect((await inner.admit([rule], [])).allowed).toBe(false);
    expect((await local.admit([rule], [])).allowed).toBe(true);
    expect(store.healthy).toBe(true);
    expect(store.kind).toBe('redis');
  });

  it('falls back when a call fails, logs once per outage and recovers once a probe answers', async () => {
    const { primary, state } = switchable();
    const logs: string[] = [];
    const store = createResilientStore(primary, createMemoryStore(), (m) => logs.push(m), { coolDownMs: 20 });
    await store.set('gw:kv:a', 'shared');

    // A call fails on a connection that still looked healthy.
    state.up = false;
    expect(await store.get('gw:kv:a')).toBeNull();
    expect(store.healthy).toBe(false);
    expect((await store.admit([rule], [])).allowed).toBe(true);
    expect((await store.admit([rule], [])).allowed).toBe(false);
    // Known down: the primary is not even tried.
    state.healthy = false;
    const calls = state.calls;
    expect(await store.incrBy('gw:ctr:c', 2)).toBe(2);
    expect(state.calls).toBe(calls);
    expect(logs).toEqual([expect.stringContaining('unavailable, using local state: Connection is closed.')]);

    state.up = true;
    state.healthy = true;
    await until(() => store.healthy);
    expect(await store.get('gw:kv:a')).toBe('shared');
    expect(logs).toHaveLength(2);
    expect(logs[1]).toMatch(/available again/);

    state.up = false;
    await store.get('gw:kv:a');
    expect(logs).toHaveLength(3);
    await store.close();
  });

  it('after a command times out on a hung primary, answers locally at once, probes one PING at a time, and goes back when it answers', async () => {
    const { primary, state } = switchable(200);
    const logs: string[] = [];
    const store = createResilientStore(primary, createMemoryStore(), (m) => logs.push(m), { coolDownMs: 50 });
    await store.set('gw:kv:a', 'shared');
    // Healthy: one primary call per check, no probe.
    expect(state.pings).toBe(0);

    state.hung = true;
    let started = Date.now();
    expect(await store.get('gw:kv:a')).toBeNull();
    expect(Date.now() - started).toBeGreaterThanOrEqual(190); // the one call that found out
    expect(logs).toEqual([expect.stringContaining('unavailable, using local state: Command timed out')]);

    // For as long as it stays hung: every call is local and immediate, and the primary is left alone.
    const calls = state.calls;
    const took: number[] = [];
    for (let i = 0; i < 20; i++) {
      started = Date.now();
      expect((await store.admit([{ ...rule, key: `gw:rl:hung:${i}` }], [])).allowed).toBe(true);
      took.push(Date.now() - started);
      await sleep(30);
    }
    expect(Math.max(...took)).toBeLessThan(100);
    expect(state.calls).toBe(calls);
    expect(store.healthy).toBe(false);
    // Probing meanwhile, never two PINGs at once.
    expect(state.pings).toBeGreaterThanOrEqual(2);
    expect(state.maxPingsInFlight).toBe(1);

    state.hung = false;
    await until(() => store.healthy, 1000);
    expect(await store.get('gw:kv:a')).toBe('shared');
    expect(logs).toHaveLength(2);
    expect(logs[1]).toMatch(/available again/);
    // Healthy again: no more probes.
    const pings = state.pings;
    await sleep(200);
    expect(state.pings).toBe(pings);
    await store.close();
  });

  it('stops probing at close', async () => {
    const { primary, state } = switchable(20);
    const store = createResilientStore(primary, createMemoryStore(), () => {}, { coolDownMs: 10 });
    state.up = false;
    await store.get('gw:kv:a');
    await store.close();
    const pings = state.pings;
    await sleep(100);
    expect(state.pings).toBe(pings);
  });

  it('rethrows caller bugs instead of failing over', async () => {
    const { primary } = switchable();
    const logs: string[] = [];
    const store = createResilientStore(primary, createMemoryStore(), (m) => logs.push(m));
    await expect(store.incrBy('gw:ctr:c', 0.5)).rejects.toThrow(TypeError);
    expect(store.healthy).toBe(true);
    expect(logs).toEqual([]);
  });

  it('releases a lease taken during an outage once the primary is back', async () => {
    const { primary, state } = switchable();
    const local = createMemoryStore();
    const store = createResilientStore(primary, local);
    state.healthy = false;
    const lease = await store.acquire('gw:conc:k', 1, 60_000);
    expect(lease).toEqual(expect.any(String));
    state.healthy = true;
    await store.release('gw:conc:k', lease!);
    expect(await local.acquire('gw:conc:k', 1, 60_000)).toEqual(expect.any(String));
  });

  it('delivers messages over the primary, and locally while it is down', async () => {
    const { primary, state } = switchable();
    const store = createResilientStore(primary, createMemoryStore());
    const seen: string[] = [];
    const stop = await store.subscribe('gw:bus:x', (m) => seen.push(m));
    await store.publish('gw:bus:x', 'shared');
    state.up = false;
    await store.publish('gw:bus:x', 'local');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(seen).toEqual(['shared', 'local']);
    state.up = true;
    await stop();
    await store.publish('gw:bus:x', 'gone');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(seen).toEqual(['shared', 'local']);
  });
});
