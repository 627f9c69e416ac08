import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteLogStore } from './sqlite.ts';
import type { StagingOptions } from './sqlite-staging.ts';
import { makeRecord } from './test-records.ts';
import type { LogRecord, LogStore } from './types.ts';

const HOUR = Date.parse('2024-03-01T10:00:00Z');
const DAY = Date.parse('2024-03-01T00:00:00Z');

let dir: string;
const stores: LogStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function open(staging: StagingOptions = {}): Promise<LogStore> {
  const store = createSqliteLogStore({ file: join(dir, 'gateway.db'), staging });
  stores.push(store);
  await store.migrate();
  return store;
}

/** What the file holds now, read on a connection of its own. */
function onDisk() {
  const db = new Database(join(dir, 'gateway.db'), { readonly: true });
  try {
    const ids = (table: string) => db.prepare(`SELECT id FROM ${table} ORDER BY id`).pluck().all();
    return {
      staged: ids('call_logs_staged'),
      logged: ids('call_logs'),
      bodies: ids('call_log_bodies'),
      hourCount: db.prepare('SELECT COALESCE(SUM(n), 0) FROM call_log_counts_hour').pluck().get(),
      dayCount: db.prepare('SELECT COALESCE(SUM(n), 0) FROM call_log_counts_day').pluck().get(),
      rollupCount: db.prepare('SELECT COALESCE(SUM(request_count), 0) FROM stat_rollup').pluck().get(),
    };
  } finally {
    db.close();
  }
}

const call = (id: string, over: Partial<LogRecord> = {}) =>
  makeRecord({ id, created_at: HOUR + 60_000, request: JSON.stringify({ first: id }), ...over });

describe('the SQLite call log stages rows and indexes them in bulk', () => {
  it('keeps a batch staged (bodies written) until enough rows wait, then moves them all with their counts and rollup', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-staging-'));
    const store = await open({ moveRows: 5, moveAfterMs: 60_000 });
    await store.insertBatch([call('a'), call('b'), call('c')]);
    expect(onDisk()).toEqual({ staged: ['a', 'b', 'c'], logged: [], bodies: ['a', 'b', 'c'], hourCount: 0, dayCount: 0, rollupCount: 0 });
    await store.insertBatch([call('d'), call('e', { created_at: DAY - 1 })]);
    expect(onDisk()).toEqual({ staged: [], logged: ['a', 'b', 'c', 'd', 'e'], bodies: ['a', 'b', 'c', 'd', 'e'], hourCount: 5, dayCount: 5, rollupCount: 5 });
  });

  it('moves staged rows after moveAfterMs when nothing reads them', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-staging-'));
    const store = await open({ moveRows: 1_000, moveAfterMs: 30 });
    await store.insertBatch([call('a')]);
    expect(onDisk().staged).toEqual(['a']);
    await expect.poll(() => onDisk(), { timeout: 5_000 }).toMatchObject({ staged: [], logged: ['a'], hourCount: 1, rollupCount: 1 });
  });

  it('moves before every read, so reads see each committed row', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-staging-'));
    const store = await open({ moveRows: 1_000, moveAfterMs: 60_000 });
    const reads: Array<[string, () => Promise<unknown>]> = [
      ['list', async () => (await store.list({}, 1, 10)).total],
      ['get', async () => (await store.get('r_get'))?.id],
      ['breakdown', async () => (await store.breakdown({}, 'model', 100)).groups.reduce((n, group) => n + group.request_count, 0)],
      ['rollup', async () => (await store.rollup(DAY, DAY + 86_400_000, {}, 'bucket')).reduce((n, row) => n + row.request_count, 0)],
      ['deleteOlderThan', async () => store.deleteOlderThan(HOUR + 120_000)],
    ];
    const seen: Record<string, unknown> = {};
    for (const [name, read] of reads) {
      await store.insertBatch([call(`r_${name}`)]);
      expect(onDisk().staged, name).toEqual([`r_${name}`]);
      seen[name] = await read();
      expect(onDisk().staged, name).toEqual([]);
    }
    expect(seen).toEqual({ list: 1, get: 'r_get', breakdown: 3, rollup: 4, deleteOlderThan: 5 });
  });

  it('moves on close, and a start moves what a killed process left staged', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-staging-'));
    const killed = await open({ moveAfterMs: 60_000 });
    await killed.insertBatch([call('left_1'), call('left_2')]);
    // Another process starting on the same file (what a restart after SIGKILL sees).
    const next = await open({ moveAfterMs: 60_000 });
    expect(onDisk()).toMatchObject({ staged: [], logged: ['left_1', 'left_2'], hourCount: 2, rollupCount: 2 });
    await next.insertBatch([call('closing')]);
    await next.close();
    expect(onDisk()).toMatchObject({ staged: [], logged: ['closing', 'left_1', 'left_2'], hourCount: 3, rollupCount: 3 });
  });

  it('logs and counts an id once, whether its copies are staged together or one was moved already; the first copy\'s texts stay', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-staging-'));
    const store = await open({ moveAfterMs: 60_000 });
    await store.insertBatch([call('once'), call('twice'), call('twice', { request: JSON.stringify({ second: true }) })]);
    await store.insertBatch([call('twice', { request: JSON.stringify({ third: true }) })]);
    expect((await store.list({}, 1, 10)).total).toBe(2);
    await store.insertBatch([call('once', { request: JSON.stringify({ replayed: true }), request_tokens: 999 })]);
    expect(onDisk()).toMatchObject({ staged: ['once'], bodies: ['once', 'twice'] });
    expect((await store.list({}, 1, 10)).total).toBe(2);
    expect(onDisk()).toEqual({ staged: [], logged: ['once', 'twice'], bodies: ['once', 'twice'], hourCount: 2, dayCount: 2, rollupCount: 2 });
    expect((await store.get('once'))?.request).toEqual({ first: 'once' });
    expect((await store.get('twice'))?.request).toEqual({ first: 'twice' });
    const [usage] = await store.rollup(DAY, DAY + 86_400_000, {}, 'bucket');
    expect(usage).toMatchObject({ request_count: 2, prompt_tokens: 2 });
  });

  it('keeps rows staged while a move fails: a read says why, the next move takes them', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-staging-'));
    const store = await open({ moveRows: 2, moveAfterMs: 30 });
    const admin = new Database(join(dir, 'gateway.db'));
    try {
      admin.exec(`CREATE TABLE blocked (x); INSERT INTO blocked VALUES (1);
        CREATE TRIGGER block_moves BEFORE INSERT ON call_logs WHEN EXISTS (SELECT 1 FROM blocked) BEGIN SELECT RAISE(ABORT, 'moves blocked'); END;`);
      // The size-triggered move fails inside insertBatch: the batch is committed all the same.
      await store.insertBatch([call('a'), call('b')]);
      await new Promise((resolve) => setTimeout(resolve, 100)); // a timer's retry fails too
      expect(onDisk()).toMatchObject({ staged: ['a', 'b'], logged: [], hourCount: 0 });
      await expect(store.list({}, 1, 10)).rejects.toThrow('moves blocked');
      admin.exec('DELETE FROM blocked');
      await expect.poll(() => onDisk(), { timeout: 5_000 }).toMatchObject({ staged: [], logged: ['a', 'b'], hourCount: 2, rollupCount: 2 });
      expect((await store.list({}, 1, 10)).total).toBe(2);
    } finally {
      admin.close();
    }
  });

  it('closes the file even when its last move fails; the rows wait staged for the next start', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-staging-'));
    const store = await open({ moveAfterMs: 60_000 });
    const admin = new Database(join(dir, 'gateway.db'));
    try {
      admin.exec(`CREATE TRIGGER block_moves BEFORE INSERT ON call_logs BEGIN SELECT RAISE(ABORT, 'moves blocked'); END;`);
      await store.insertBatch([call('kept')]);
      await expect(store.close()).rejects.toThrow('moves blocked');
      await expect(store.ping()).rejects.toThrow(/not open/);
      admin.exec('DROP TRIGGER block_moves');
    } finally {
      admin.close();
    }
    const next = await open();
    expect((await next.list({}, 1, 10)).items.map((item) => item.id)).toEqual(['kept']);
  });

  it('processes sharing one file (cluster workers) stage and move at once, and every row is logged and counted once', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-staging-'));
    await (await open()).close(); // migrated once, so the writers collide on moves, not migrations
    stores.length = 0;
    const start = Date.now() + 3000;
    const writer = (name: string) => `import { createSqliteLogStore } from './src/features/logs/sqlite.ts';
      import { makeRecord } from './src/features/logs/test-records.ts';
      const store = createSqliteLogStore({ file: ${JSON.stringify(join(dir, 'gateway.db'))}, staging: { moveRows: 60, moveAfterMs: 5 } });
      await store.migrate();
      while (Date.now() < ${start}) await new Promise((r) => setTimeout(r, 1));
      for (let b = 0; b < 40; b++) {
        await store.insertBatch(Array.from({ length: 20 }, (_, i) => makeRecord({ id: '${name}_' + b + '_' + i, api_key_id: 'k' + (i % 7) })));
        if (b % 10 === 9) await store.list({}, 1, 1);
        await new Promise((r) => setTimeout(r, 2));
      }
      await store.close();`;
    let errors = '';
    const codes = await Promise.all(
      ['w1', 'w2', 'w3'].map(
        (name) =>
          new Promise<number | null>((done) => {
            const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', writer(name)], { stdio: ['ignore', 'ignore', 'pipe'] });
            child.stderr!.on('data', (chunk) => (errors += chunk));
            child.once('exit', done);
          }),
      ),
    );
    expect(codes, errors).toEqual([0, 0, 0]);
    expect(onDisk()).toMatchObject({ staged: [], hourCount: 2_400, dayCount: 2_400, rollupCount: 2_400 });
    expect(onDisk().logged).toHaveLength(2_400);
    expect(onDisk().bodies).toHaveLength(2_400);
  }, 30_000);
});
