import { describe, expect, it } from 'vitest';
import { createMemoryStore } from './memory.ts';
import { createResilientStore } from './resilient.ts';
import type { StateStore } from './types.ts';

/** A memory store standing in for Redis, which can be switched off: calls then throw, or hang up. */
function switchable() {
  const inner = createMemoryStore();
  const state = { up: true, healthy: true };
  const primary = new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'kind') return 'redis';
      if (prop === 'healthy') return state.healthy;
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function' || prop === 'close') return value;
      return async (...args: unknown[]) => {
        if (!state.up) throw new Error('Connection is closed.');
        return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
      };
    },
  }) as StateStore;
  return { primary, inner, state };
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

  it('falls back when a call fails, logs once per outage and recovers', async () => {
    const { primary, state } = switchable();
    const logs: string[] = [];
    const store = createResilientStore(primary, createMemoryStore(), (m) => logs.push(m));
    await store.set('gw:kv:a', 'shared');

    // A call fails on a connection that still looked healthy (e.g. a timeout).
    state.up = false;
    expect(await store.get('gw:kv:a')).toBeNull();
    expect(store.healthy).toBe(false);
    expect((await store.admit([rule], [])).allowed).toBe(true);
    expect((await store.admit([rule], [])).allowed).toBe(false);
    // Known down: the primary is not even tried.
    state.healthy = false;
    expect(await store.incrBy('gw:ctr:c', 2)).toBe(2);
    expect(logs).toEqual([expect.stringContaining('unavailable, using local state: Connection is closed.')]);

    state.up = true;
    state.healthy = true;
    expect(await store.get('gw:kv:a')).toBe('shared');
    expect(store.healthy).toBe(true);
    expect(logs).toHaveLength(2);
    expect(logs[1]).toMatch(/available again/);

    state.up = false;
    await store.get('gw:kv:a');
    expect(logs).toHaveLength(3);
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
