import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import type { KeyConfig } from '../config/types.ts';
import { createMemoryStore } from '../store/memory.ts';
import { createRedisStore } from '../store/redis.ts';
import type { StateStore } from '../store/types.ts';
import { quotaCounter } from './counter.ts';
import { carryZoneChange } from './zone-change.ts';

// 03:00 UTC on Nov 25: still Nov 24 in Los Angeles, so the two zones count on different days.
const now = Date.parse('2026-11-25T03:00:00Z');
const url = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const prefix = `gwtest:zone:${randomUUID()}:`;

const budgeted = (id: string, quota_period?: 'daily' | 'monthly') =>
  ({ id, name: id, key_hash: '', account: 'a', status: 'active', permissions: { models: [], rate_limit: 0, quota_limit: 1000, quota_period } }) as KeyConfig;
const day = (id: string, tz: string) => quotaCounter('key', id, 'daily', tz, now).key;

afterAll(async () => {
  const admin = new Redis(url, { maxRetriesPerRequest: 1 });
  for await (const keys of admin.scanStream({ match: `${prefix}*`, count: 500 })) {
    if ((keys as string[]).length > 0) await admin.del(...(keys as string[]));
  }
  await admin.quit();
});

const stores: Array<[string, () => Promise<StateStore>]> = [
  ['memory', async () => createMemoryStore({ now: () => now })],
  ['redis', () => createRedisStore(url, { prefix })],
];

describe.each(stores)('time zone change on the %s store', (_, make) => {
  it("carries a spent day into the new zone's counter, which it never lowers", async () => {
    const store = await make();
    const [spent, ahead, lifetime] = [budgeted(`k-${randomUUID()}`, 'daily'), budgeted(`k-${randomUUID()}`, 'daily'), budgeted(`k-${randomUUID()}`)];
    await store.incrBy(day(spent.id, 'UTC'), 1209);
    await store.incrBy(day(ahead.id, 'UTC'), 100);
    await store.incrBy(day(ahead.id, 'America/Los_Angeles'), 500);
    await carryZoneChange(store, [spent, ahead, lifetime], 'UTC', 'America/Los_Angeles', now);
    expect(await store.getCounters([day(spent.id, 'America/Los_Angeles'), day(ahead.id, 'America/Los_Angeles')])).toEqual([1209, 500]);
    // The old counter keeps its usage (a change back lands on it again).
    expect(await store.getCounters([day(spent.id, 'UTC')])).toEqual([1209]);
    // A budget's period is still admitted on its counter, refused as spent.
    const rule = { key: day(spent.id, 'America/Los_Angeles'), limit: 1000, reserve: 10 };
    expect((await store.admit([], [rule])).refusedBy).toMatchObject({ kind: 'quota', used: 1209 });
    await store.close();
  });

  it('keeps reservations made on the new counter during the carry, and follows up with what the old zone still counts', async () => {
    const store = await make();
    const key = budgeted(`k-${randomUUID()}`, 'daily');
    const [from, to] = [day(key.id, 'UTC'), day(key.id, 'America/Los_Angeles')];
    await store.incrBy(from, 600);
    // Calls already counting in the new zone reserve while the carry runs: none of them is lost.
    const [followUp] = await Promise.all([
      carryZoneChange(store, [key], 'UTC', 'America/Los_Angeles', now),
      ...Array.from({ length: 10 }, () => store.admit([], [{ key: to, limit: 1000, reserve: 10 }])),
    ]);
    const carried = (await store.getCounters([to]))[0]!;
    expect(carried).toBeGreaterThanOrEqual(600);
    expect(carried).toBeLessThanOrEqual(700);
    // An instance not told yet admits two more calls in the old zone; a refund settles there too.
    await store.admit([], [{ key: from, limit: 1000, reserve: 150 }]);
    await store.admit([], [{ key: from, limit: 1000, reserve: 150 }]);
    await followUp();
    expect(await store.getCounters([to])).toEqual([carried + 300]);
    await store.incrBy(from, -100);
    await followUp();
    expect(await store.getCounters([to])).toEqual([carried + 300]); // never lowered
    await store.incrBy(from, 40);
    await followUp();
    expect(await store.getCounters([to])).toEqual([carried + 340]);
    await store.close();
  });
});
