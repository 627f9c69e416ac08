import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogQueue } from './queue.ts';
import { listSpillFiles, readSpillFile, spillDirOf, writeSpillFile } from './spill.ts';
import { replaySpills } from './spill-replay.ts';
import { createSqliteLogStore } from './sqlite.ts';
import { createThreadedSqliteLogStore } from './sqlite-threaded.ts';
import { makeRecord } from './test-records.ts';
import type { LogRecord, LogStore } from './types.ts';

const dirs: string[] = [];
const stores: LogStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close().catch(() => {})));
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-spill-'));
  dirs.push(dir);
  return dir;
}

async function sqliteStore(dataDir: string): Promise<LogStore> {
  const store = createSqliteLogStore({ dataDir });
  await store.migrate();
  stores.push(store);
  return store;
}

const NOW = Date.parse('2025-05-04T10:00:00Z');
const rec = (i: number) =>
  makeRecord({ id: `req_${i}`, created_at: NOW + i, request: `{"n":${i}}`, response: '{"choices":[]}', input_cost: '0.5', output_cost: '0.25' });
const logs = () => {
  const lines: Array<{ level: string; message: string; fields?: Record<string, unknown> }> = [];
  const at = (level: string) => (message: string, fields?: Record<string, unknown>) => void lines.push({ level, message, fields });
  return { lines, logger: { info: at('info'), warn: at('warn'), error: at('error') } };
};
const requestCount = async (store: LogStore) =>
  (await store.rollup(NOW - 3_600_000, NOW + 3_600_000, {}, 'model')).reduce((n, r) => n + r.request_count, 0);

describe('log spill files', () => {
  it('holds one JSON record per line, 0600 in a 0700 directory, under a name no other write shares', async () => {
    const dir = spillDirOf(await tempDir());
    const records = [rec(1), rec(2)];
    const first = await writeSpillFile(dir, records);
    const second = await writeSpillFile(dir, records);
    expect(first).not.toBe(second);
    expect(basename(first)).toMatch(new RegExp(`^\\d+-${process.pid}-[0-9a-f]{12}\\.jsonl$`));
    expect((await stat(first)).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    const lines = (await readFile(first, 'utf8')).trimEnd().split('\n');
    expect(lines.map((line) => JSON.parse(line))).toEqual(records);
    expect((await readdir(dir)).sort()).toEqual([basename(first), basename(second)].sort()); // no temporary file left
  });

  it('lists only complete spill files, oldest first, and reads nothing from a file that is gone', async () => {
    const dir = spillDirOf(await tempDir());
    expect(await listSpillFiles(dir)).toEqual([]); // no directory yet
    const a = await writeSpillFile(dir, [rec(1)]);
    await new Promise((r) => setTimeout(r, 5));
    const b = await writeSpillFile(dir, [rec(2)]);
    await writeFile(join(dir, `.${basename(b)}.0123456789ab.tmp`), 'half a line');
    await writeFile(join(dir, 'notes.txt'), 'x');
    expect(await listSpillFiles(dir)).toEqual([a, b]);
    expect(await readSpillFile(join(dir, '1-2-0123456789ab.jsonl'))).toBeNull();
  });

  it('cannot be written where the data directory is unusable (the caller logs the billing instead)', async () => {
    const dataDir = await tempDir();
    await writeFile(join(dataDir, 'log-spill'), 'not a directory');
    await expect(writeSpillFile(spillDirOf(dataDir), [rec(1)])).rejects.toThrow();
  });
});

describe('spill replay at start', () => {
  it('stores every file and deletes it once stored; rows already there are not counted twice', async () => {
    const dataDir = await tempDir();
    const dir = spillDirOf(dataDir);
    await writeSpillFile(dir, [rec(1), rec(2), rec(3)]);
    await writeSpillFile(dir, [rec(3), rec(4)]); // a record in two files
    const store = await sqliteStore(dataDir);
    await store.insertBatch([rec(2)]); // a write that landed after all at the deadline
    const { logger } = logs();
    const replay = replaySpills(store, dir, logger, { batchSize: 2 });
    await replay.done;
    expect(await listSpillFiles(dir)).toEqual([]);
    for (const i of [1, 2, 3, 4]) expect((await store.get(`req_${i}`))?.request).toEqual({ n: i });
    expect(await requestCount(store)).toBe(4);
    // Replaying the same rows again changes nothing.
    await writeSpillFile(dir, [rec(1), rec(4)]);
    await replaySpills(store, dir, logger).done;
    expect(await requestCount(store)).toBe(4);
  });

  it('keeps a file while the store is down and stores it once the store answers again', async () => {
    const dataDir = await tempDir();
    const dir = spillDirOf(dataDir);
    const file = await writeSpillFile(dir, [rec(1), rec(2)]);
    const real = await sqliteStore(dataDir);
    let down = true;
    const store: LogStore = {
      ...real,
      insertBatch: (records) => (down ? Promise.reject(new Error('connect ECONNREFUSED')) : real.insertBatch(records)),
      ping: () => (down ? Promise.reject(new Error('connect ECONNREFUSED')) : real.ping()),
    };
    const { lines, logger } = logs();
    const replay = replaySpills(store, dir, logger, { retryBaseMs: 10, retryMaxMs: 20 });
    await new Promise((r) => setTimeout(r, 100));
    expect(await listSpillFiles(dir)).toEqual([file]);
    expect(lines.some((l) => l.message === 'cannot store spilled log records yet; retrying')).toBe(true);
    down = false;
    await replay.done;
    expect(await listSpillFiles(dir)).toEqual([]);
    expect(await real.get('req_2')).not.toBeNull();
  });

  it('stop() ends the retries and leaves the file for the next start', async () => {
    const dir = spillDirOf(await tempDir());
    const file = await writeSpillFile(dir, [rec(1)]);
    const store = { insertBatch: () => Promise.reject(new Error('down')), ping: () => Promise.reject(new Error('down')) } as unknown as LogStore;
    const replay = replaySpills(store, dir, logs().logger, { retryBaseMs: 60_000 });
    await new Promise((r) => setTimeout(r, 20));
    replay.stop();
    await replay.done;
    expect(await listSpillFiles(dir)).toEqual([file]);
  });

  it('keeps a record the store refuses while it answers in a new spill file for the next start, logging its billing fields', async () => {
    const dataDir = await tempDir();
    const dir = spillDirOf(dataDir);
    const file = await writeSpillFile(dir, [rec(1), makeRecord({ id: 'req_bad', created_at: NOW, model: 'm9' }), rec(2)]);
    const real = await sqliteStore(dataDir);
    const store: LogStore = {
      ...real,
      insertBatch: (records) => (records.some((r) => r.id === 'req_bad') ? Promise.reject(new Error('value too long')) : real.insertBatch(records)),
    };
    const { lines, logger } = logs();
    const replay = replaySpills(store, dir, logger, { retryBaseMs: 5 });
    await replay.done;
    expect(await real.get('req_1')).not.toBeNull();
    expect(await real.get('req_2')).not.toBeNull();
    expect(replay.refused).toBe(1);
    const left = await listSpillFiles(dir);
    expect(left).toHaveLength(1);
    expect(left[0]).not.toBe(file);
    expect((await readSpillFile(left[0]!))!.records.map((r) => r.id)).toEqual(['req_bad']);
    const refused = lines.filter((l) => l.message === 'spilled log record refused by the store');
    expect(refused.map((l) => l.fields)).toEqual([expect.objectContaining({ id: 'req_bad', model: 'm9', account_id: 'a1', api_key_id: 'k1' })]);
  });

  it('stores the readable records of a damaged file and keeps the file, renamed', async () => {
    const dataDir = await tempDir();
    const dir = spillDirOf(dataDir);
    const file = await writeSpillFile(dir, [rec(1), rec(2)]);
    await writeFile(file, `${await readFile(file, 'utf8')}{"id": "req_3", "crea\n`);
    const store = await sqliteStore(dataDir);
    const { lines, logger } = logs();
    await replaySpills(store, dir, logger).done;
    expect(await requestCount(store)).toBe(2);
    expect(await readdir(dir)).toEqual([`${basename(file)}.unreadable`]);
    expect(lines.some((l) => l.level === 'error' && l.fields?.unreadable === 1)).toBe(true);
  });

  it('SQLite: rows a crashed log worker could not take at shutdown are spilled, then stored at the next start', async () => {
    const dataDir = await tempDir();
    const dir = spillDirOf(dataDir);
    const crashing = createThreadedSqliteLogStore({
      dataDir, workerEntry: new URL('./test-crashing-worker.ts', import.meta.url), restartAfterMs: 60_000, onError: () => {},
    });
    stores.push(crashing);
    await crashing.migrate();
    const queue = createLogQueue(crashing, {
      batchSize: 10, flushIntervalMs: 60_000, max: 100, retryBaseMs: 10, closeTimeoutMs: 300, logger: { warn() {} },
      spill: async (records: LogRecord[]) => void (await writeSpillFile(dir, records)),
    });
    queue.enqueue(rec(1));
    queue.enqueue(rec(2));
    await queue.close();
    expect(queue.dropped).toBe(0);
    expect(queue.spilled).toBe(2);

    const store = await sqliteStore(dataDir);
    await replaySpills(store, dir, logs().logger).done;
    expect(await store.get('req_1')).not.toBeNull();
    expect(await store.get('req_2')).not.toBeNull();
    expect(await listSpillFiles(dir)).toEqual([]);
  });
});
