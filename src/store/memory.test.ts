import { describe, expect, it } from 'vitest';
import { createMemoryStore } from './memory.ts';
import { defineStoreSuite } from './store-suite.ts';

// A fake clock makes every time-dependent case instant and exact.
defineStoreSuite('memory', async () => {
  let t = 1_700_000_000_000;
  const store = createMemoryStore({ now: () => t });
  return {
    store,
    advance: async (ms) => {
      t += ms;
    },
  };
});

describe('memory store', () => {
  it('slides the window by the real clock when none is injected', async () => {
    const store = createMemoryStore();
    const rule = { key: 'gw:rl:real', limit: 1, windowMs: 100 };
    expect((await store.admit([rule], [])).allowed).toBe(true);
    expect((await store.admit([rule], [])).allowed).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 130));
    expect((await store.admit([rule], [])).allowed).toBe(true);
    await store.close();
  });

  it('evicts the least recently used plain values beyond maxEntries but never counters', async () => {
    const store = createMemoryStore({ maxEntries: 2 });
    await store.incrBy('gw:quota:q', 9);
    await store.set('gw:kv:a', '1');
    await store.set('gw:kv:b', '2');
    await store.set('gw:kv:c', '3');
    expect(await store.get('gw:kv:a')).toBeNull();
    expect(await store.get('gw:kv:c')).toBe('3');
    expect(await store.getCounters(['gw:quota:q'])).toEqual([9]);
    await store.close();
  });

  it('counts a plain integer value like Redis INCRBY does', async () => {
    const store = createMemoryStore();
    await store.set('gw:ctr:x', '41');
    expect(await store.incrBy('gw:ctr:x', 1)).toBe(42);
    expect(await store.get('gw:ctr:x')).toBe('42');
    await store.set('gw:ctr:y', 'text');
    await expect(store.incrBy('gw:ctr:y', 1)).rejects.toThrow(/not an integer/);
    await store.close();
  });
});
