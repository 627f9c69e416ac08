import { describe, expect, it } from 'vitest';
import { PoolTimeoutError, PriorityPool } from './concurrency-pool.ts';

describe('PriorityPool', () => {
  it('admits waiters by priority, then arrival', async () => {
    const pool = new PriorityPool(1);
    const release = await pool.acquire(0, 1000);
    const order: string[] = [];
    const waits = [
      pool.acquire(-Infinity, 1000).then((r) => (order.push('plain'), r())),
      pool.acquire(1, 1000).then((r) => (order.push('low'), r())),
      pool.acquire(10, 1000).then((r) => (order.push('vip'), r())),
      pool.acquire(1, 1000).then((r) => (order.push('low2'), r())),
    ];
    expect(pool.queued).toBe(4);
    release();
    await Promise.all(waits);
    expect(order).toEqual(['vip', 'low', 'low2', 'plain']);
    expect(pool.active).toBe(0);
  });

  it('times out and leaves the queue; abort leaves too', async () => {
    const pool = new PriorityPool(1);
    const release = await pool.acquire(0, 1000);
    await expect(pool.acquire(0, 30)).rejects.toBeInstanceOf(PoolTimeoutError);
    const controller = new AbortController();
    const aborted = pool.acquire(0, 1000, controller.signal);
    controller.abort();
    await expect(aborted).rejects.toThrow(/aborted/);
    expect(pool.queued).toBe(0);
    release();
    release(); // double release is harmless
    expect(pool.active).toBe(0);
  });
});
