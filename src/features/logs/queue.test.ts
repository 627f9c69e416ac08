import { describe, expect, it } from 'vitest';
import { createLogQueue } from './queue.ts';
import type { DropReason } from './queue.ts';
import { makeRecord } from './test-records.ts';
import type { LogRecord, LogStore } from './types.ts';

/** A store that records batches; `fail` decides per batch whether insertBatch rejects. */
function fakeStore(opts: { fail?: (batch: LogRecord[]) => boolean; pingOk?: () => boolean; gate?: Promise<void> } = {}) {
  const batches: string[][] = [];
  const store = {
    kind: 'sqlite',
    async insertBatch(batch: LogRecord[]) {
      if (opts.gate) await opts.gate;
      if (opts.fail?.(batch)) throw new Error('write failed');
      batches.push(batch.map((r) => r.id));
    },
    async ping() {
      if (opts.pingOk && !opts.pingOk()) throw new Error('down');
      return 1;
    },
  } as unknown as LogStore;
  return { store, batches, written: () => batches.flat() };
}

const rec = (i: number, bodies = false) =>
  makeRecord({ id: `log_${i}`, request: bodies ? '{"messages":[]}' : null, response: bodies ? '{"choices":[]}' : null });
const quiet = { warn() {} };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('log queue', () => {
  it('writes full batches at once and the rest on flush', async () => {
    const f = fakeStore();
    const q = createLogQueue(f.store, { batchSize: 3, flushIntervalMs: 60_000, max: 100, logger: quiet });
    for (let i = 0; i < 7; i++) q.enqueue(rec(i));
    await sleep(10);
    expect(f.batches.map((b) => b.length)).toEqual([3, 3]);
    expect(q.depth).toBe(1);
    await q.flush();
    expect(f.batches.map((b) => b.length)).toEqual([3, 3, 1]);
    expect(q.depth).toBe(0);
    await q.close();
  });

  it('writes a partial batch after the flush interval', async () => {
    const f = fakeStore();
    const q = createLogQueue(f.store, { batchSize: 100, flushIntervalMs: 20, max: 100, logger: quiet });
    q.enqueue(rec(1));
    expect(f.batches).toEqual([]);
    await sleep(80);
    expect(f.batches).toEqual([['log_1']]);
    await q.close();
  });

  it('never holds more than max: bodies go first, then new records are dropped', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const f = fakeStore({ gate });
    const drops: [string, DropReason][] = [];
    const q = createLogQueue(f.store, {
      batchSize: 100, flushIntervalMs: 60_000, max: 4, stripBodiesAt: 2, logger: quiet,
      onDrop: (r, why) => drops.push([r.id, why]),
    });
    for (let i = 0; i < 7; i++) q.enqueue(rec(i, true));
    expect(q.depth).toBe(4);
    expect(q.dropped).toBe(3);
    expect(q.stripped).toBe(2);
    expect(drops).toEqual([['log_4', 'full'], ['log_5', 'full'], ['log_6', 'full']]);
    const flushed = q.flush();
    release();
    await flushed;
    expect(f.written()).toEqual(['log_0', 'log_1', 'log_2', 'log_3']);
    await q.close();
  });

  it('keeps a failed batch and retries it with backoff during an outage', async () => {
    let down = true;
    const f = fakeStore({ fail: () => down, pingOk: () => !down });
    const q = createLogQueue(f.store, { batchSize: 2, flushIntervalMs: 5, max: 100, retryBaseMs: 5, retryMaxMs: 20, logger: quiet });
    for (let i = 0; i < 5; i++) q.enqueue(rec(i));
    await sleep(60);
    expect(f.written()).toEqual([]);
    expect(q.depth).toBe(5);
    down = false;
    await sleep(80);
    expect(f.written()).toEqual(['log_0', 'log_1', 'log_2', 'log_3', 'log_4']);
    expect(q.dropped).toBe(0);
    await q.close();
  });

  it('isolates a record the database refuses, drops only it, and writes the others', async () => {
    const f = fakeStore({ fail: (b) => b.some((r) => r.id === 'log_bad') });
    const drops: string[] = [];
    const q = createLogQueue(f.store, {
      batchSize: 10, flushIntervalMs: 5, max: 100, retryBaseMs: 5, logger: quiet, onDrop: (r) => drops.push(r.id),
    });
    q.enqueue(rec(1));
    q.enqueue(makeRecord({ id: 'log_bad' }));
    q.enqueue(rec(2));
    await sleep(80);
    expect(f.written().sort()).toEqual(['log_1', 'log_2']);
    expect(drops).toEqual(['log_bad']);
    expect(q.depth).toBe(0);
    await q.close();
  });

  it('flushes everything on close, then refuses new records', async () => {
    const f = fakeStore();
    const drops: DropReason[] = [];
    const q = createLogQueue(f.store, { batchSize: 50, flushIntervalMs: 60_000, max: 1000, logger: quiet, onDrop: (_, w) => drops.push(w) });
    for (let i = 0; i < 120; i++) q.enqueue(rec(i));
    await q.close();
    expect(f.written()).toHaveLength(120);
    expect(new Set(f.written()).size).toBe(120);
    q.enqueue(rec(999));
    expect(drops).toEqual(['closed']);
  });

  it('gives up on close when the store stays down, counting what is lost', async () => {
    const f = fakeStore({ fail: () => true, pingOk: () => false });
    const q = createLogQueue(f.store, { batchSize: 10, flushIntervalMs: 60_000, max: 100, retryBaseMs: 1, closeAttempts: 2, logger: quiet });
    q.enqueue(rec(1));
    q.enqueue(rec(2));
    await expect(q.flush()).rejects.toThrow('write failed');
    expect(q.depth).toBe(2);
    await q.close();
    expect(q.depth).toBe(0);
    expect(q.dropped).toBe(2);
  });
});
