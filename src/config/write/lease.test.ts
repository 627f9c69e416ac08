import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { GatewayError } from '../../kernel/errors.ts';
import { createMemoryStore } from '../../store/memory.ts';
import { createRedisStore } from '../../store/redis.ts';
import type { StateStore } from '../../store/types.ts';
import { withLease } from './lease.ts';

// The real local Redis, as the store suite uses it; a random prefix keeps runs apart.
const url = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const prefix = `gwtest:lease:${randomUUID()}:`;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const what = 'the test resource';

/** Runs `n` leased tasks over `stores` (round robin) and reports the most that ever ran at once. */
async function overlap(stores: StateStore[], key: string, n: number): Promise<{ most: number; done: number }> {
  let running = 0;
  let most = 0;
  let done = 0;
  await Promise.all(
    Array.from({ length: n }, (_, i) =>
      withLease(stores[i % stores.length]!, key, async () => {
        most = Math.max(most, ++running);
        await sleep(5);
        running--;
        done++;
      }, { what, retryMs: 2 }),
    ),
  );
  return { most, done };
}

describe('cluster lease (memory store)', () => {
  it('lets one holder at a time run, every caller in turn', async () => {
    const store = createMemoryStore();
    expect(await overlap([store], 'gw:lock:t', 12)).toEqual({ most: 1, done: 12 });
    expect(await store.get('gw:lock:t')).toBeNull();
  });

  it('answers 503 change_in_progress with Retry-After in the OpenAI error shape when the lease stays taken past waitMs', async () => {
    const store = createMemoryStore();
    let release: () => void = () => {};
    const holder = withLease(store, 'gw:lock:t', () => new Promise<void>((resolve) => (release = resolve)), { what });
    await sleep(5);
    const started = Date.now();
    const refused = await withLease(store, 'gw:lock:t', async () => 'ran', { what, waitMs: 80, retryMs: 5 }).catch((e: unknown) => e);
    expect(Date.now() - started).toBeGreaterThanOrEqual(75);
    expect(GatewayError.is(refused)).toBe(true);
    const error = refused as GatewayError;
    expect(error.status).toBe(503);
    expect(error.headers['retry-after']).toBe('1');
    expect(error.toJSON()).toEqual({
      error: { message: 'Another change to the test resource is in progress on another instance; retry in a moment.', type: 'server_error', param: null, code: 'change_in_progress' },
    });
    release();
    await holder;
    await expect(withLease(store, 'gw:lock:t', async () => 'ran', { what })).resolves.toBe('ran');
  });

  it('is released when the task throws', async () => {
    const store = createMemoryStore();
    await expect(withLease(store, 'gw:lock:t', async () => { throw new Error('boom'); }, { what })).rejects.toThrow('boom');
    expect(await store.get('gw:lock:t')).toBeNull();
  });

  it('is renewed while held: a task outlasting the ttl keeps others out', async () => {
    const store = createMemoryStore();
    let confirmed: boolean | undefined;
    const holder = withLease(store, 'gw:lock:t', async (lease) => {
      await sleep(300);
      confirmed = await lease.confirm();
    }, { what, ttlMs: 90 });
    await sleep(10);
    await expect(withLease(store, 'gw:lock:t', async () => 'ran', { what, waitMs: 200, retryMs: 5 })).rejects.toMatchObject({ status: 503 });
    await holder;
    expect(confirmed).toBe(true);
  });

  it('frees the lease of a crashed holder after its ttl', async () => {
    const store = createMemoryStore();
    await store.compareAndSet('gw:lock:t', null, 'crashed-holder', 60);
    const started = Date.now();
    await expect(withLease(store, 'gw:lock:t', async () => 'ran', { what, retryMs: 5 })).resolves.toBe('ran');
    expect(Date.now() - started).toBeGreaterThanOrEqual(50);
  });

  it('tells a holder that lost its lease, and never frees the next holder\'s', async () => {
    const store = createMemoryStore();
    let confirmed: boolean | undefined;
    await withLease(store, 'gw:lock:t', async (lease) => {
      // As if it stalled past the ttl and another caller took the lease meanwhile.
      await store.set('gw:lock:t', 'next-holder');
      confirmed = await lease.confirm();
    }, { what });
    expect(confirmed).toBe(false);
    expect(await store.get('gw:lock:t')).toBe('next-holder');
  });
});

describe('cluster lease (two Redis connections, as two instances)', () => {
  const stores: StateStore[] = [];
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    const redis = new Redis(url);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });

  it('lets one holder at a time run across both, every caller in turn, and leaves no key behind', async () => {
    stores.push(await createRedisStore(url, { prefix }), await createRedisStore(url, { prefix }));
    expect(await overlap(stores, 'gw:lock:t', 16)).toEqual({ most: 1, done: 16 });
    expect(await stores[0]!.get('gw:lock:t')).toBeNull();
  });
});
