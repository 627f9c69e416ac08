import { describe, expect, it, vi } from 'vitest';
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

  it('a timed write takes what was queued when it began: later records wait for a full batch or their own interval', async () => {
    vi.useFakeTimers();
    try {
      let release!: () => void;
      const f = fakeStore({ gate: new Promise<void>((r) => (release = r)) });
      const q = createLogQueue(f.store, { batchSize: 10, flushIntervalMs: 50, max: 100, logger: quiet });
      for (let i = 0; i < 3; i++) q.enqueue(rec(i));
      await vi.advanceTimersByTimeAsync(50); // the interval: a write of the three begins (held by the gate)
      q.enqueue(rec(3));
      q.enqueue(rec(4));
      release();
      await vi.advanceTimersByTimeAsync(0);
      // Not written straight after: under steady load that made one small batch after another.
      expect(f.batches).toEqual([['log_0', 'log_1', 'log_2']]);
      await vi.advanceTimersByTimeAsync(49);
      expect(f.batches).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(1);
      expect(f.batches).toEqual([['log_0', 'log_1', 'log_2'], ['log_3', 'log_4']]);
      for (let i = 5; i < 15; i++) q.enqueue(rec(i)); // a full batch goes at once
      await vi.advanceTimersByTimeAsync(0);
      expect(f.batches.at(-1)).toHaveLength(10);
      await q.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it('writes a few queued records after 10 ms, and waits out the interval when more are queued', async () => {
    vi.useFakeTimers();
    try {
      const f = fakeStore();
      const q = createLogQueue(f.store, { batchSize: 80, flushIntervalMs: 50, max: 1000, logger: quiet });
      for (let i = 0; i < 10; i++) q.enqueue(rec(i)); // at most batchSize / 8: a quiet queue
      await vi.advanceTimersByTimeAsync(9);
      expect(f.batches).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      expect(f.batches.map((b) => b.length)).toEqual([10]);
      for (let i = 10; i < 21; i++) q.enqueue(rec(i)); // more: a busy queue waits for the interval
      await vi.advanceTimersByTimeAsync(49);
      expect(f.batches).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(1);
      expect(f.batches.map((b) => b.length)).toEqual([10, 11]);
      await q.close();
    } finally {
      vi.useRealTimers();
    }
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

  it('spills a record the database refuses (not dropped) and counts it, writing the others', async () => {
    const f = fakeStore({ fail: (b) => b.some((r) => r.id === 'log_bad') });
    const drops: string[] = [];
    const spills: Array<{ ids: string[]; reason: string }> = [];
    const warnings: string[] = [];
    const q = createLogQueue(f.store, {
      batchSize: 10, flushIntervalMs: 5, max: 100, retryBaseMs: 5, onDrop: (r) => drops.push(r.id),
      logger: { warn: (m) => warnings.push(m) },
      spill: async (records, reason) => void spills.push({ ids: records.map((r) => r.id), reason }),
    });
    q.enqueue(rec(1));
    q.enqueue(makeRecord({ id: 'log_bad' }));
    q.enqueue(rec(2));
    await sleep(80);
    expect(f.written().sort()).toEqual(['log_1', 'log_2']);
    expect(spills).toEqual([{ ids: ['log_bad'], reason: 'rejected' }]);
    expect(drops).toEqual([]);
    expect({ refused: q.refused, spilled: q.spilled, dropped: q.dropped, depth: q.depth }).toEqual({ refused: 1, spilled: 1, dropped: 0, depth: 0 });
    expect(warnings).toContain('log record refused by the store');
    await q.close();
  });

  it('drops a refused record only when its spill fails too, and counts it both ways', async () => {
    const f = fakeStore({ fail: (b) => b.some((r) => r.id === 'log_bad') });
    const drops: string[] = [];
    const q = createLogQueue(f.store, {
      batchSize: 10, flushIntervalMs: 5, max: 100, retryBaseMs: 5, logger: quiet, onDrop: (r) => drops.push(r.id),
      spill: () => Promise.reject(new Error('read-only file system')),
    });
    q.enqueue(makeRecord({ id: 'log_bad' }));
    q.enqueue(rec(1));
    await sleep(80);
    expect(f.written()).toEqual(['log_1']);
    expect(drops).toEqual(['log_bad']);
    expect({ refused: q.refused, spilled: q.spilled, dropped: q.dropped }).toEqual({ refused: 1, spilled: 0, dropped: 1 });
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

  it('keeps retrying at close until the store comes back, and loses nothing', async () => {
    let down = true;
    let attempts = 0;
    const f = fakeStore({ fail: () => (attempts++, down), pingOk: () => !down });
    const q = createLogQueue(f.store, { batchSize: 10, flushIntervalMs: 60_000, max: 100, retryBaseMs: 5, closeTimeoutMs: 5_000, logger: quiet });
    q.enqueue(rec(1));
    q.enqueue(rec(2));
    setTimeout(() => (down = false), 400); // the database is back well after a few quick retries
    const started = Date.now();
    await q.close();
    expect(Date.now() - started).toBeGreaterThanOrEqual(350);
    expect(attempts).toBeGreaterThan(3);
    expect(f.written()).toEqual(['log_1', 'log_2']);
    expect(q.dropped).toBe(0);
    expect(q.spilled).toBe(0);
  });

  it('hands what the store did not take by the close deadline to spill, dropping nothing', async () => {
    const f = fakeStore({ fail: () => true, pingOk: () => false });
    const spills: string[][] = [];
    const q = createLogQueue(f.store, {
      batchSize: 2, flushIntervalMs: 60_000, max: 100, retryBaseMs: 5, closeTimeoutMs: 200, logger: quiet,
      spill: async (records) => void spills.push(records.map((r) => r.id)),
    });
    for (let i = 0; i < 5; i++) q.enqueue(rec(i, true));
    const started = Date.now();
    await q.close();
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(190);
    expect(took).toBeLessThan(1_000);
    expect(spills).toEqual([['log_0', 'log_1', 'log_2', 'log_3', 'log_4']]);
    expect(q.depth).toBe(0);
    expect(q.dropped).toBe(0);
    expect(q.spilled).toBe(5);
  });

  it('a store that never answers cannot hold close past the deadline: the write in flight is spilled too', async () => {
    const f = fakeStore({ gate: new Promise<void>(() => {}) }); // every write hangs, like a blackholed server
    const spilled: string[] = [];
    const q = createLogQueue(f.store, {
      batchSize: 10, flushIntervalMs: 60_000, max: 100, closeTimeoutMs: 150, logger: quiet,
      spill: async (records) => void spilled.push(...records.map((r) => r.id)),
    });
    q.enqueue(rec(1));
    q.enqueue(rec(2));
    const started = Date.now();
    await q.close();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(spilled).toEqual(['log_1', 'log_2']);
    expect(q.dropped).toBe(0);
  }, 5_000);

  it('when spilling fails, logs every lost record with its billing fields and never its bodies', async () => {
    const f = fakeStore({ fail: () => true, pingOk: () => false });
    const warnings: Array<{ message: string; meta?: Record<string, unknown> }> = [];
    const q = createLogQueue(f.store, {
      batchSize: 10, flushIntervalMs: 60_000, max: 100, retryBaseMs: 5, closeTimeoutMs: 50,
      logger: { warn: (message, meta) => void warnings.push({ message, meta }) },
      spill: async () => {
        throw Object.assign(new Error('EROFS: read-only file system'), { code: 'EROFS' });
      },
    });
    q.enqueue(makeRecord({
      id: 'log_paid', account_id: 'acct_9', api_key_id: 'key_7', model: 'gpt-4o', request_tokens: 120, response_tokens: 80,
      input_cost: '0.0012', output_cost: '0.0016', currency: 'USD', created_at: Date.parse('2025-05-04T03:02:01.000Z'),
      request: '{"messages":[{"role":"user","content":"my secret prompt"}]}', response: '{"choices":["the answer"]}',
    }));
    await q.close();
    expect(q.dropped).toBe(1);
    const lines = warnings.filter((w) => w.message === 'log record dropped');
    expect(lines).toHaveLength(1);
    expect(lines[0]!.meta).toMatchObject({
      id: 'log_paid', created_at: '2025-05-04T03:02:01.000Z', account_id: 'acct_9', api_key_id: 'key_7', model: 'gpt-4o',
      request_tokens: 120, response_tokens: 80, input_cost: '0.0012', output_cost: '0.0016', currency: 'USD', billed: true,
      reason: 'closed',
    });
    const text = JSON.stringify(warnings);
    for (const leak of ['my secret prompt', 'the answer', '"request"', '"response"', '"ip"', '"user_agent"']) expect(text).not.toContain(leak);
    expect(warnings.some((w) => w.message === 'could not spill the unwritten log records')).toBe(true);
  });

  it('without a spill, close drops what the store did not take by the deadline, counting it', async () => {
    const f = fakeStore({ fail: () => true, pingOk: () => false });
    const q = createLogQueue(f.store, { batchSize: 10, flushIntervalMs: 60_000, max: 100, retryBaseMs: 1, closeTimeoutMs: 20, logger: quiet });
    q.enqueue(rec(1));
    q.enqueue(rec(2));
    await expect(q.flush()).rejects.toThrow('write failed');
    expect(q.depth).toBe(2);
    await q.close();
    expect(q.depth).toBe(0);
    expect(q.dropped).toBe(2);
  });
});
