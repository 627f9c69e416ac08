import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Runtime } from '../../pipeline/runtime.ts';
import type { Logger } from '../../pipeline/types.ts';
import { startRetention } from './retention.ts';
import { createLogService, flushTimeoutFrom, logHealthProbes } from './service.ts';
import { listSpillFiles, spillDirOf, writeSpillFile } from './spill.ts';
import { makeRecord } from './test-records.ts';
import type { LogStore } from './types.ts';

const logger: Logger = { info: () => {}, warn: () => {}, error: () => {} };
const DAY = 86_400_000;
let dirs: string[] = [];

afterEach(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  dirs = [];
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-logsvc-'));
  dirs.push(dir);
  return dir;
}

async function service(queueMax = 10, options: { dir?: string; env?: NodeJS.ProcessEnv; logger?: Logger } = {}) {
  const dir = options.dir ?? (await tempDir());
  const runtime = { dataDir: dir, current: () => ({ config: { logs: { retention_days: 30 } } }) } as unknown as Runtime;
  return createLogService({
    runtime,
    env: options.env ?? {},
    logger: options.logger ?? logger,
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

describe('log service with a store that fails at shutdown', () => {
  it('GATEWAY_FLUSH_TIMEOUT_MS: 15 s by default, milliseconds >= 0, anything else stops the start', async () => {
    expect(flushTimeoutFrom({})).toBe(15_000);
    expect(flushTimeoutFrom({ GATEWAY_FLUSH_TIMEOUT_MS: ' 2500 ' })).toBe(2500);
    expect(flushTimeoutFrom({ GATEWAY_FLUSH_TIMEOUT_MS: '0' })).toBe(0);
    for (const bad of ['-1', '20s', 'NaN']) expect(() => flushTimeoutFrom({ GATEWAY_FLUSH_TIMEOUT_MS: bad })).toThrow('GATEWAY_FLUSH_TIMEOUT_MS');
    await expect(service(10, { env: { GATEWAY_FLUSH_TIMEOUT_MS: 'soon' } })).rejects.toThrow("not 'soon'");
  });

  it('spills what the store did not take by GATEWAY_FLUSH_TIMEOUT_MS to the data directory; the next start stores it', async () => {
    const dir = await tempDir();
    const warnings: Array<[string, Record<string, unknown> | undefined]> = [];
    const first = await service(10, { dir, env: { GATEWAY_FLUSH_TIMEOUT_MS: '200' }, logger: { ...logger, warn: (m, f) => void warnings.push([m, f]) } });
    const down = () => Promise.reject(new Error('connect ECONNREFUSED'));
    vi.spyOn(first.store, 'insertBatch').mockImplementation(down);
    vi.spyOn(first.store, 'ping').mockImplementation(down);
    first.queue.enqueue(makeRecord({ id: 'log_a', request: '{"messages":[]}' }));
    first.queue.enqueue(makeRecord({ id: 'log_b' }));
    await first.close();
    expect(first.queue.dropped).toBe(0);
    const [file] = await listSpillFiles(spillDirOf(dir));
    expect(file).toBeDefined();
    expect(warnings.find(([m]) => m.startsWith('log store unavailable at shutdown'))?.[1]).toMatchObject({ file, records: 2 });

    const second = await service(10, { dir });
    await second.replay.done;
    expect((await second.store.get('log_a'))?.request).toEqual({ messages: [] });
    expect(await second.store.get('log_b')).not.toBeNull();
    expect(await readdir(spillDirOf(dir))).toEqual([]);
    await second.close();
  });

  it('with REDIS_URL, spills to Redis instead: a start with another (empty) data directory stores the rows', async () => {
    const env = { GATEWAY_FLUSH_TIMEOUT_MS: '200', REDIS_URL: process.env.REDIS_URL || 'redis://127.0.0.1:6379', GATEWAY_REDIS_PREFIX: `test:logsvc:${Date.now()}:${Math.random()}:` };
    const dir = await tempDir();
    const first = await service(10, { dir, env });
    const down = () => Promise.reject(new Error('connect ECONNREFUSED'));
    vi.spyOn(first.store, 'insertBatch').mockImplementation(down);
    vi.spyOn(first.store, 'ping').mockImplementation(down);
    first.queue.enqueue(makeRecord({ id: 'log_r1' }));
    first.queue.enqueue(makeRecord({ id: 'log_r2' }));
    await first.close();
    expect(first.queue.spilled).toBe(2);
    expect(await listSpillFiles(spillDirOf(dir))).toEqual([]);

    // The pod is gone with its data directory: a new instance, a new directory.
    const second = await service(10, { env });
    for (let i = 0; i < 250 && !(await second.store.get('log_r2')); i++) await new Promise((r) => setTimeout(r, 20));
    expect(await second.store.get('log_r1')).not.toBeNull();
    expect(await second.store.get('log_r2')).not.toBeNull();
    await second.close();
  });

  it('with Redis unreachable too, falls back to the spill file', async () => {
    const dir = await tempDir();
    const warnings: string[] = [];
    const first = await service(10, { dir, env: { GATEWAY_FLUSH_TIMEOUT_MS: '200', REDIS_URL: 'redis://127.0.0.1:1' }, logger: { ...logger, warn: (m) => void warnings.push(m) } });
    const down = () => Promise.reject(new Error('connect ECONNREFUSED'));
    vi.spyOn(first.store, 'insertBatch').mockImplementation(down);
    vi.spyOn(first.store, 'ping').mockImplementation(down);
    first.queue.enqueue(makeRecord({ id: 'log_f1' }));
    await first.close();
    expect(warnings).toContain('cannot spill the log records to Redis: writing a spill file instead');
    expect(await listSpillFiles(spillDirOf(dir))).toHaveLength(1);
  });

  it('stores the spill files it finds at start in the background, deleting each once stored', async () => {
    const dir = await tempDir();
    await writeSpillFile(spillDirOf(dir), [makeRecord({ id: 'log_x' }), makeRecord({ id: 'log_y' })]);
    const svc = await service(10, { dir });
    await svc.replay.done;
    expect(await svc.store.get('log_x')).not.toBeNull();
    expect(await svc.store.get('log_y')).not.toBeNull();
    expect(await listSpillFiles(spillDirOf(dir))).toEqual([]);
    await svc.close();
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
