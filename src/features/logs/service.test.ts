import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Runtime } from '../../pipeline/runtime.ts';
import { startRetention } from './retention.ts';
import { createLogService, logHealthProbes } from './service.ts';
import { makeRecord } from './test-records.ts';
import type { LogStore } from './types.ts';

const logger = { info: () => {}, warn: () => {}, error: () => {} };
const DAY = 86_400_000;
let dirs: string[] = [];

afterEach(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  dirs = [];
});

async function service(queueMax = 10) {
  const dir = await mkdtemp(join(tmpdir(), 'gw-logsvc-'));
  dirs.push(dir);
  const runtime = { dataDir: dir, current: () => ({ config: { logs: { retention_days: 30 } } }) } as unknown as Runtime;
  return createLogService({
    runtime,
    env: {},
    logger,
    logs: { retention_days: 30, batch_size: 1000, flush_interval_ms: 60_000, queue_max: queueMax },
  });
}

describe('log service', () => {
  it('health: queue degraded above 80% of queue_max, database probe pings the store', async () => {
    const svc = await service(10);
    const [database, queue] = logHealthProbes(svc);
    expect((await database!.check()).detail).toEqual({ kind: 'sqlite' });
    for (let i = 0; i < 8; i++) svc.queue.enqueue(makeRecord({ id: `log_${i}` }));
    expect((await queue!.check()).status).toBeUndefined();
    svc.queue.enqueue(makeRecord({ id: 'log_8' }));
    const full = await queue!.check();
    expect(full.status).toBe('degraded');
    expect(full.detail).toMatchObject({ depth: 9, max: 10 });
    await svc.close();
  });

  it('close() flushes the queue before closing the store', async () => {
    const svc = await service();
    const order: string[] = [];
    const insert = svc.store.insertBatch.bind(svc.store);
    const close = svc.store.close.bind(svc.store);
    vi.spyOn(svc.store, 'insertBatch').mockImplementation(async (r) => {
      order.push(`insert ${r.length}`);
      return insert(r);
    });
    vi.spyOn(svc.store, 'close').mockImplementation(async () => {
      order.push('close');
      return close();
    });
    svc.queue.enqueue(makeRecord({ id: 'log_a' }));
    svc.queue.enqueue(makeRecord({ id: 'log_b' }));
    await svc.close();
    expect(order).toEqual(['insert 2', 'close']);
  });
});

describe('retention job', () => {
  it('deletes rows older than retention_days, read at each run', async () => {
    const deleted: number[] = [];
    const store = { deleteOlderThan: async (ms: number) => (deleted.push(ms), 3) } as unknown as LogStore;
    let days = 30;
    const job = startRetention(store, () => days, logger, 3_600_000);
    const now = Date.parse('2025-06-01T00:00:00Z');
    expect(await job.runOnce(now)).toBe(3);
    days = 7;
    await job.runOnce(now);
    expect(deleted).toEqual([now - 30 * DAY, now - 7 * DAY]);
    await job.stop();
  });

  it('really removes old rows from the store, keeping statistics', async () => {
    const svc = await service();
    const now = Date.now();
    await svc.store.insertBatch([
      makeRecord({ id: 'log_old', created_at: now - 40 * DAY }),
      makeRecord({ id: 'log_new', created_at: now - 1 * DAY }),
    ]);
    expect(await svc.retention.runOnce(now)).toBe(1);
    expect(await svc.store.get('log_old')).toBeNull();
    expect(await svc.store.get('log_new')).not.toBeNull();
    const rollup = await svc.store.rollup(now - 50 * DAY, now, {}, 'model');
    expect(rollup[0]!.request_count).toBe(2);
    await svc.close();
  });
});
