import { randomUUID } from 'node:crypto';
import { connect, createServer, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryStore } from './memory.ts';
import { createRedisStore } from './redis.ts';
import { createResilientStore } from './resilient.ts';
import { defineStoreSuite } from './store-suite.ts';
import type { StateStore } from './types.ts';

// The real local Redis, never skipped: when it is unreachable these tests fail (ping throws).
const url = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
// A random prefix per run keeps parallel runs (and other suites) apart; afterAll deletes its keys.
const prefix = `gwtest:${randomUUID()}:`;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A TCP proxy to `target` that can hang as a stopped Redis does (`kill -STOP`): connections stay
 * open and what is sent is held, unanswered, until `resume()` delivers it in order.
 */
async function hangingProxy(target: string) {
  const { hostname, port } = new URL(target);
  let hung = false;
  const held: Array<() => void> = [];
  const sockets = new Set<Socket>();
  const forward = (from: Socket, to: Socket) =>
    from.on('data', (chunk: Buffer) => (hung ? held.push(() => to.write(chunk)) : to.write(chunk)));
  const server = createServer((client) => {
    const upstream = connect(Number(port || 6379), hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    forward(client, upstream);
    forward(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `redis://127.0.0.1:${(server.address() as { port: number }).port}`,
    hang: () => void (hung = true),
    resume() {
      hung = false;
      for (const send of held.splice(0)) send();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** How long `promise` took; fails (without waiting for it) once it is pending after `limitMs`. */
async function timed(promise: Promise<unknown>, limitMs: number): Promise<number> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`still pending after ${limitMs} ms`)), limitMs)));
  try {
    await Promise.race([promise, late]);
    return Date.now() - started;
  } finally {
    clearTimeout(timer);
  }
}

let admin: Redis;
beforeAll(async () => {
  admin = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
  await admin.connect();
  expect(await admin.ping()).toBe('PONG');
});
afterAll(async () => {
  for await (const keys of admin.scanStream({ match: `${prefix}*`, count: 500 })) {
    if ((keys as string[]).length > 0) await admin.del(...(keys as string[]));
  }
  await admin.quit();
});

defineStoreSuite('redis', async () => {
  const store = await createRedisStore(url, { prefix });
  await store.ping();
  // Redis judges windows by its own clock, so time can only pass for real.
  return { store, advance: sleep };
});

describe('redis store', () => {
  it('shares one limit between two instances on the same prefix', async () => {
    const [one, two] = await Promise.all([createRedisStore(url, { prefix }), createRedisStore(url, { prefix })]);
    try {
      const rule = { key: `gw:rl:${randomUUID()}`, limit: 10, windowMs: 60_000 };
      expect((await one.admit([rule], [])).rates[0]!.remaining).toBe(9);
      expect((await two.admit([rule], [])).rates[0]!.remaining).toBe(8);
      const burst = await Promise.all(
        Array.from({ length: 30 }, (_, i) => (i % 2 ? one : two).admit([rule], [{ key: `gw:quota:${rule.key}`, limit: 0, reserve: 1 }])),
      );
      expect(burst.filter((r) => r.allowed)).toHaveLength(8);
      expect(await one.getCounters([`gw:quota:${rule.key}`])).toEqual([8]);
      expect(await two.getCounters([`gw:quota:${rule.key}`])).toEqual([8]);
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });

  it('delivers a message published by one instance to another', async () => {
    const [one, two] = await Promise.all([createRedisStore(url, { prefix }), createRedisStore(url, { prefix })]);
    try {
      const got = new Promise<string>((resolve) => void two.subscribe('gw:bus:reload', resolve));
      await sleep(50);
      await one.publish('gw:bus:reload', 'v2');
      expect(await got).toBe('v2');
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });

  it('prefixes every key, so another prefix sees nothing', async () => {
    const mine = await createRedisStore(url, { prefix });
    const other = await createRedisStore(url, { prefix: `${prefix}other:` });
    try {
      await mine.set('gw:kv:shared-name', 'mine');
      expect(await admin.get(`${prefix}gw:kv:shared-name`)).toBe('mine');
      expect(await other.get('gw:kv:shared-name')).toBeNull();
    } finally {
      await Promise.all([mine.close(), other.close()]);
    }
  });

  it('reconnects by itself after its connection is killed', async () => {
    const name = `gwtest-${randomUUID()}`;
    const store = await createRedisStore(url, { prefix, connectionName: name });
    try {
      expect(store.healthy).toBe(true);
      const clients = (await admin.client('LIST')) as string;
      const line = clients.split('\n').find((l) => l.includes(`name=${name}:commands`));
      const id = /\bid=(\d+)/.exec(line ?? '')?.[1];
      expect(id).toBeDefined();
      await admin.client('KILL', 'ID', id!);
      // The client may not have noticed the kill yet: calls fail fast until it has reconnected.
      const rule = { key: `gw:rl:${randomUUID()}`, limit: 1, windowMs: 1000 };
      const deadline = Date.now() + 5000;
      let admitted: boolean | undefined;
      while (admitted === undefined && Date.now() < deadline) {
        admitted = await store.admit([rule], []).then((r) => r.allowed, () => undefined);
        if (admitted === undefined) await sleep(20);
      }
      expect(admitted).toBe(true);
      expect(store.healthy).toBe(true);
    } finally {
      await store.close();
    }
  });
});

describe('resilient store over an unreachable Redis', () => {
  let down: StateStore;
  let startedMs: number;
  beforeAll(async () => {
    const started = Date.now();
    // Nothing listens on 6390: startup must still finish quickly.
    down = await createRedisStore('redis://127.0.0.1:6390', { prefix, connectTimeoutMs: 500 });
    startedMs = Date.now() - started;
  });
  afterAll(async () => {
    await down.close();
  });

  it('starts without hanging, unhealthy, and fails calls fast', async () => {
    expect(startedMs).toBeLessThan(1500);
    expect(down.healthy).toBe(false);
    const started = Date.now();
    await expect(down.get('gw:kv:x')).rejects.toThrow();
    await expect(down.ping()).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('admits on local limits, reports unhealthy and logs the outage once', async () => {
    const logs: string[] = [];
    const store = createResilientStore(down, createMemoryStore(), (m) => logs.push(m));
    const started = Date.now();
    const rule = { key: 'gw:rl:k1', limit: 2, windowMs: 60_000 };
    expect((await store.admit([rule], [])).allowed).toBe(true);
    expect((await store.admit([rule], [])).allowed).toBe(true);
    expect((await store.admit([rule], [])).refusedBy).toEqual({ kind: 'rate', index: 0 });
    expect(await store.incrBy('gw:quota:q', 5)).toBe(5);
    expect(await store.acquire('gw:conc:k1', 1, 1000)).toEqual(expect.any(String));
    expect(Date.now() - started).toBeLessThan(1000);
    expect(store.healthy).toBe(false);
    expect(store.kind).toBe('redis');
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(/unavailable/);
    await expect(store.ping()).rejects.toThrow();
  });
});

describe('a hung Redis (connected, never answering)', () => {
  it('is skipped after one command timeout: calls answer locally at once until a probe PING gets through', async () => {
    const proxy = await hangingProxy(url);
    const logs: string[] = [];
    const store = createResilientStore(await createRedisStore(proxy.url, { prefix, commandTimeoutMs: 300 }), createMemoryStore(), (m) => logs.push(m), { coolDownMs: 100 });
    try {
      const key = `gw:kv:${randomUUID()}`;
      await store.set(key, 'shared');
      proxy.hang();
      expect(await timed(store.get(key), 2000)).toBeGreaterThanOrEqual(250); // the call that finds out
      for (let i = 0; i < 5; i++) expect(await timed(store.incrBy(`${key}:n`, 1), 2000)).toBeLessThan(150);
      expect(await store.get(`${key}:n`)).toBe('5'); // counted locally
      expect(store.healthy).toBe(false);
      expect(logs).toEqual([expect.stringMatching(/unavailable, using local state: Command timed out/)]);
      proxy.resume();
      const deadline = Date.now() + 3000;
      while (!store.healthy && Date.now() < deadline) await sleep(20);
      expect(store.healthy).toBe(true);
      expect(await store.get(key)).toBe('shared');
      expect(logs).toEqual([expect.anything(), expect.stringMatching(/available again/)]);
    } finally {
      await store.close();
      await proxy.close();
    }
  });

  it('lets an unsubscribe and the close finish within about a second each, then disconnects', async () => {
    const proxy = await hangingProxy(url);
    const store = await createRedisStore(proxy.url, { prefix });
    try {
      expect(store.healthy).toBe(true);
      const stop = await store.subscribe('gw:bus:hung-a', () => {});
      await store.subscribe('gw:bus:hung-b', () => {});
      proxy.hang();
      expect(await timed(stop(), 3000)).toBeLessThan(1500);
      expect(await timed(store.close(), 3000)).toBeLessThan(1500);
    } finally {
      await proxy.close();
    }
  });
});
