/**
 * The Redis spill list on the local Redis (REDIS_URL, a random key prefix per test): pushed rows
 * are stored once by whichever instance takes the lease, an element leaves the list only once
 * stored, a store that is down keeps it, and an unreachable Redis refuses the push at once (the
 * service then writes the file).
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Logger } from '../../pipeline/types.ts';
import { openRedisSpill, SPILL_LEASE, SPILL_LIST, SPILL_UNREADABLE, type RedisSpill } from './spill-redis.ts';
import { makeRecord } from './test-records.ts';
import type { LogRecord, LogStore } from './types.ts';

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const logger: Logger = { info: () => {}, warn: () => {}, error: () => {} };
const admin = new Redis(REDIS_URL, { lazyConnect: true });
let prefix = '';
let opened: RedisSpill[] = [];

afterEach(async () => {
  await Promise.all(opened.map((spill) => spill.close()));
  opened = [];
  const keys = await admin.keys(`${prefix}*`);
  if (keys.length) await admin.del(...keys);
});
afterAll(() => admin.quit());

async function open(options: { pollMs?: number; url?: string } = {}) {
  if (!prefix) prefix = `test:spill:${randomUUID()}:`;
  const spill = await openRedisSpill(options.url ?? REDIS_URL, logger, { prefix, pollMs: options.pollMs ?? 60_000, retryBaseMs: 20 });
  opened.push(spill);
  return spill;
}

/** A store that records the ids it was given (in order, duplicates kept) and can be made to fail. */
function fakeStore(options: { delayMs?: number } = {}) {
  const inserted: string[] = [];
  const state = { down: false };
  const store = {
    kind: 'sqlite',
    async insertBatch(records: LogRecord[]) {
      if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
      if (state.down) throw new Error('connect ECONNREFUSED');
      inserted.push(...records.map((r) => r.id));
    },
    async ping() {
      if (state.down) throw new Error('connect ECONNREFUSED');
      return 1;
    },
  } as unknown as LogStore;
  return { store, inserted, state };
}

async function until(check: () => Promise<boolean> | boolean, ms = 5_000) {
  for (const deadline = Date.now() + ms; Date.now() < deadline; ) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('timed out');
}

const records = (n: number, from = 0) => Array.from({ length: n }, (_, i) => makeRecord({ id: `log_${from + i}` }));

describe('Redis spill', () => {
  beforeEach(() => {
    prefix = `test:spill:${randomUUID()}:`;
  });

  it('push keeps the rows in one list under the prefix, 200 per element', async () => {
    const spill = await open();
    await spill.push(records(450));
    expect(await admin.llen(`${prefix}${SPILL_LIST}`)).toBe(3);
    const [first] = await admin.lrange(`${prefix}${SPILL_LIST}`, 0, 0);
    expect(first!.trimEnd().split('\n')).toHaveLength(200);
    expect(JSON.parse(first!.split('\n')[0]!).id).toBe('log_0');
  });

  it('two instances replaying at once store every row exactly once, and empty the list', async () => {
    const writer = await open();
    await writer.push(records(600));
    const { store, inserted } = fakeStore({ delayMs: 30 });
    const a = await open();
    const b = await open();
    a.replayInto(store);
    b.replayInto(store);
    await until(async () => (await admin.llen(`${prefix}${SPILL_LIST}`)) === 0);
    await Promise.all([a.idle, b.idle]);
    expect(inserted.slice().sort()).toEqual(records(600).map((r) => r.id).sort());
    expect(new Set(inserted).size).toBe(600);
    expect(await admin.exists(`${prefix}${SPILL_LEASE}`)).toBe(0); // released
  });

  it('keeps an element while the store is down, and stores it once the store is back', async () => {
    const writer = await open();
    await writer.push(records(3));
    const { store, inserted, state } = fakeStore();
    state.down = true;
    const replayer = await open();
    replayer.replayInto(store);
    await until(() => replayer.idle.then(() => true));
    await new Promise((r) => setTimeout(r, 100)); // a few failed attempts
    expect(await admin.llen(`${prefix}${SPILL_LIST}`)).toBe(1);
    expect(replayer.pending).toBe(1); // the gateway_log_spill_pending gauge
    expect(inserted).toEqual([]);
    state.down = false;
    await until(async () => (await admin.llen(`${prefix}${SPILL_LIST}`)) === 0);
    expect(inserted).toEqual(['log_0', 'log_1', 'log_2']);
    await until(() => replayer.pending === 0);
  });

  it('stores the readable rows of a damaged element and moves it aside', async () => {
    await admin.rpush(`${prefix}${SPILL_LIST}`, `${JSON.stringify(makeRecord({ id: 'log_ok' }))}\n{not json\n`);
    const { store, inserted } = fakeStore();
    const replayer = await open();
    replayer.replayInto(store);
    await until(async () => (await admin.llen(`${prefix}${SPILL_LIST}`)) === 0);
    expect(inserted).toEqual(['log_ok']);
    expect(await admin.llen(`${prefix}${SPILL_UNREADABLE}`)).toBe(1);
  });

  it('refuses a push when Redis is unreachable (the service then writes the file)', async () => {
    const spill = await open({ url: 'redis://127.0.0.1:1' });
    await expect(spill.push(records(1))).rejects.toThrow();
  });
});
