import { describe, expect, it } from 'vitest';
import { createStore } from './index.ts';

describe('createStore', () => {
  it('uses the embedded memory store when REDIS_URL is not set', async () => {
    const store = await createStore({});
    expect(store.kind).toBe('memory');
    expect(store.healthy).toBe(true);
    await store.close();
  });

  it('uses Redis, failing open to memory, when REDIS_URL is set', async () => {
    const store = await createStore({ REDIS_URL: process.env.REDIS_URL || 'redis://127.0.0.1:6379' });
    expect(store.kind).toBe('redis');
    expect(store.healthy).toBe(true);
    expect(await store.ping()).toBeGreaterThanOrEqual(0);
    await store.close();
  });

  it('starts degraded rather than failing when Redis is unreachable', async () => {
    const logs: string[] = [];
    const store = await createStore({ REDIS_URL: 'redis://127.0.0.1:6390' }, (m) => logs.push(m));
    expect(store.healthy).toBe(false);
    expect((await store.admit([{ key: 'gw:rl:x', limit: 1, windowMs: 1000 }], [])).allowed).toBe(true);
    expect(logs).toHaveLength(1);
    await store.close();
  });
});
