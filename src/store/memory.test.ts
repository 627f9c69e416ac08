import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDurableFile } from './durable-file.ts';
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

  it('never evicts durable values (settings, two-factor status, OAuth grants) to make room', async () => {
    const store = createMemoryStore({ maxEntries: 2 });
    await store.set('gw:settings:alice', '{"account":{"timezone":"Asia/Tokyo"}}');
    await store.set('gw:sec:status:alice', '{"two_factor_enabled":true}');
    for (let i = 0; i < 10; i++) await store.set(`gw:cache:${i}`, 'x');
    expect(await store.get('gw:settings:alice')).toBe('{"account":{"timezone":"Asia/Tokyo"}}');
    expect(await store.get('gw:sec:status:alice')).toBe('{"two_factor_enabled":true}');
    expect(await store.get('gw:cache:0')).toBeNull();
    await store.close();
  });

  it('keeps durable values in its file across restarts, with their expiry, and forgets deleted ones', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gw-durable-'));
    const file = join(dir, 'state.db');
    let t = 1_700_000_000_000;
    try {
      const first = createMemoryStore({ now: () => t, durable: openDurableFile(file) });
      await first.set('gw:settings:alice', 'tokyo');
      await first.set('gw:oidc:RefreshToken:r1', 'grant', 60_000);
      await first.set('gw:oidc:Session:s1', 'gone');
      await first.del('gw:oidc:Session:s1');
      await first.set('gw:cache:k', 'not kept');
      await first.close();

      t += 30_000;
      const second = createMemoryStore({ now: () => t, durable: openDurableFile(file) });
      expect(await second.get('gw:settings:alice')).toBe('tokyo');
      expect(await second.get('gw:oidc:RefreshToken:r1')).toBe('grant');
      expect(await second.get('gw:oidc:Session:s1')).toBeNull();
      expect(await second.get('gw:cache:k')).toBeNull();
      t += 30_000;
      expect(await second.get('gw:oidc:RefreshToken:r1')).toBeNull();
      await second.close();

      const third = createMemoryStore({ now: () => t, durable: openDurableFile(file) });
      expect(await third.get('gw:oidc:RefreshToken:r1')).toBeNull();
      expect(await third.get('gw:settings:alice')).toBe('tokyo');
      await third.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
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
