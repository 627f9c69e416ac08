import { mkdtempSync, rmSync, existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { createLogStore } from './log-store.ts';
import { createSqliteLogStore, WAL_CHECKPOINT_PAGES } from './sqlite.ts';
import { describeBreakdown } from './breakdown.suite.ts';
import { describeLogStore } from './store.suite.ts';
import { describeListContract } from './list.suite.ts';
import { describeBodies } from './bodies.suite.ts';
import { logWhere } from './filter-sql.ts';
import { foldStatementSql, sqliteBreakdownOf } from './breakdown-sqlite.ts';
import { makeRecord } from './test-records.ts';
import type { LogStore } from './types.ts';

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'gw-logs-'));
}

/** A store opened in a fresh directory, removed again on cleanup. */
const inTempDir = (open: (dataDir: string) => Promise<LogStore>) => async () => {
  const dir = tempDir();
  const store = await open(dir);
  return {
    store,
    async query(sql: string) {
      const db = new Database(join(dir, 'gateway.db'));
      try {
        const statement = db.prepare(sql);
        if (statement.reader) return statement.all() as Record<string, unknown>[];
        statement.run();
        return [];
      } finally {
        db.close();
      }
    },
    async cleanup() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
};

// What the gateway runs: createLogStore gives the worker-thread proxy (sqlite-threaded.ts).
describeLogStore('sqlite in a worker thread', inTempDir((dataDir) => createLogStore({ dataDir })), 'sqlite');
describeBreakdown('sqlite in a worker thread', inTempDir((dataDir) => createLogStore({ dataDir })));
describeListContract('sqlite in a worker thread', inTempDir((dataDir) => createLogStore({ dataDir })));
describeBodies('sqlite in a worker thread', inTempDir((dataDir) => createLogStore({ dataDir })));

// The synchronous driver the worker wraps, on its own.
describeLogStore('sqlite in-thread driver', inTempDir(async (dataDir) => {
  const store = createSqliteLogStore({ dataDir });
  await store.migrate();
  return store;
}), 'sqlite');

describe('sqlite log store setup', () => {
  it('stages a batch and moves it with the statement journal in memory, then leaves temp files for the reads again', async () => {
    const dir = tempDir();
    // better-sqlite3's Statement class, from any statement: its run() is where each row is written.
    const probe = new Database(':memory:');
    const statement = Object.getPrototypeOf(probe.prepare('SELECT 1')) as { run: (...args: unknown[]) => unknown };
    probe.close();
    const realRun = statement.run;
    let database: Database.Database | undefined;
    const tempStoreAtRow: number[] = [];
    vi.spyOn(statement, 'run').mockImplementation(function (this: { source: string; database: Database.Database }, ...args: unknown[]) {
      // A staged row, and the move's insert into call_logs (sqlite-staging.ts).
      if (this.source.startsWith('INSERT INTO call_logs_staged ') || this.source.trimStart().startsWith('INSERT INTO call_logs (')) {
        database = this.database;
        tempStoreAtRow.push(database.pragma('temp_store', { simple: true }) as number);
        // A batch that fails (the disk, say) still puts the setting back.
        if (args.flat().includes('req_journal_3')) throw new Error('disk I/O error');
      }
      return realRun.apply(this, args);
    });
    try {
      const store = createSqliteLogStore({ dataDir: dir });
      await store.migrate();
      await store.insertBatch([makeRecord({ id: 'req_journal_1' }), makeRecord({ id: 'req_journal_2' })]);
      await expect(store.insertBatch([makeRecord({ id: 'req_journal_3' })])).rejects.toThrow('disk I/O error');
      const MEMORY = 2;
      const DEFAULT = 0;
      expect(tempStoreAtRow).toEqual([MEMORY, MEMORY, MEMORY]);
      expect(database!.pragma('temp_store', { simple: true })).toBe(DEFAULT);
      expect((await store.list({}, 1, 10)).total).toBe(2);
      expect(tempStoreAtRow).toEqual([MEMORY, MEMORY, MEMORY, MEMORY]);
      expect(database!.pragma('temp_store', { simple: true })).toBe(DEFAULT);
      await store.close();
    } finally {
      vi.restoreAllMocks();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('creates gateway.db in WAL mode and records each migration once', async () => {
    const dir = tempDir();
    try {
      const first = await createLogStore({ dataDir: join(dir, 'nested') });
      await first.close();
      const again = await createLogStore({ dataDir: join(dir, 'nested') });
      await again.close();
      const file = join(dir, 'nested', 'gateway.db');
      expect(existsSync(file)).toBe(true);
      const db = new Database(file, { readonly: true });
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.prepare('SELECT version FROM schema_migrations').all()).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }, { version: 5 }, { version: 6 }, { version: 7 }, { version: 8 }, { version: 9 }, { version: 10 }, { version: 11 }, { version: 12 }, { version: 13 }, { version: 14 }]);
      const indexes = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'call_logs' AND sql IS NOT NULL").all();
      expect(indexes.map((i) => (i as { name: string }).name).sort()).toEqual([
        'call_logs_account_breakdown', 'call_logs_created', 'call_logs_key_breakdown',
      ]);
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it(`checkpoints the WAL every ${WAL_CHECKPOINT_PAGES} pages, not SQLite's 1,000`, async () => {
    const dir = tempDir();
    const store = createSqliteLogStore({ dataDir: dir });
    try {
      await store.migrate();
      const walPages = () => statSync(join(dir, 'gateway.db-wal')).size / (4096 + 24);
      // Small batches, each writing the tables' and indexes' last pages to the WAL again, for
      // several checkpoints' worth of pages. The WAL file is reused from its start after a
      // checkpoint, so its size is the most it held between two.
      let most = 0;
      for (let batch = 0; batch < 400; batch++) {
        await store.insertBatch(Array.from({ length: 10 }, (_, i) => makeRecord({ id: `wal_${batch}_${i}`, created_at: 1_700_000_000_000 + batch * 10 + i, request: 'x'.repeat(2_000) })));
        most = Math.max(most, walPages());
      }
      // ~9,700 pages written in all: the WAL filled to the bound, and checkpoints started it again.
      expect(most).toBeGreaterThan(WAL_CHECKPOINT_PAGES - 300);
      expect(most).toBeLessThan(WAL_CHECKPOINT_PAGES + 300);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('counts a batch itself into the list counts, and leaves rows written without `counted` to the trigger', async () => {
    const dir = tempDir();
    const store = createSqliteLogStore({ dataDir: dir });
    try {
      await store.migrate();
      const at = (iso: string) => Date.parse(iso);
      await store.insertBatch([
        makeRecord({ id: 'c_1', created_at: at('2024-03-01T10:05:00Z') }),
        makeRecord({ id: 'c_2', created_at: at('2024-03-01T10:55:00Z') }),
        makeRecord({ id: 'c_3', created_at: at('2024-03-01T11:00:00Z'), provider_id: null, status: 'error', error_code: 'upstream_error' }),
        makeRecord({ id: 'c_4', created_at: at('2024-03-02T00:00:00Z'), model: 'm2' }),
        makeRecord({ id: 'c_5', created_at: at('1969-12-31T23:30:00Z') }),
        makeRecord({ id: 'c_1', created_at: at('2024-03-01T10:05:00Z') }), // the same request again: not counted twice
      ]);
      await store.insertBatch([makeRecord({ id: 'c_2', created_at: at('2024-03-01T10:55:00Z') }), makeRecord({ id: 'c_6', created_at: at('2024-03-01T10:30:00Z') })]);
      await store.list({}, 1, 1); // a read moves the staged rows into call_logs
      const db = new Database(join(dir, 'gateway.db'));
      try {
        // A row as the previous release writes it (no `counted`): the insert trigger counts it.
        db.prepare(`INSERT INTO call_logs (id, created_at, api_key_id, api_key_name, account_id, model, endpoint, request_tokens, response_tokens,
          cached_tokens, reasoning_tokens, status, http_status, latency_ms, ip, user_agent, stream, cache_hit, attempts, input_cost, output_cost,
          input_cost_nano, output_cost_nano, currency, billed)
          VALUES ('c_old', ${at('2024-03-01T10:40:00Z')}, 'k1', 'Key one', 'a1', 'gpt-4o-mini', 'chat', 1, 1, 0, 0, 'success', 200, 5, '', '', 0, 0, '[]', '0', '0', 0, 0, 'CNY', 1)`).run();
        for (const [unit, size] of [['hour', 3_600_000], ['day', 86_400_000]] as const) {
          const keys = 'api_key_id, account_id, model, status, provider_id, endpoint, error_code';
          const fromRows = db.prepare(`SELECT created_at - ((created_at % ${size}) + ${size}) % ${size} AS bucket_ms, api_key_id, account_id, model, status,
              COALESCE(provider_id, '') AS provider_id, endpoint, COALESCE(error_code, '') AS error_code, COUNT(*) AS n
            FROM call_logs GROUP BY 1, 2, 3, 4, 5, 6, 7, 8 ORDER BY 1, 2, 3, 4, 5, 6, 7, 8`).all();
          const counted = db.prepare(`SELECT bucket_ms, ${keys}, n FROM call_log_counts_${unit} ORDER BY bucket_ms, ${keys}`).all();
          expect(counted, unit).toEqual(fromRows);
        }
        expect(db.prepare('SELECT SUM(n) AS n FROM call_log_counts_hour').get()).toEqual({ n: 7 });
        expect(db.prepare('SELECT id FROM call_logs WHERE counted IS NULL').all()).toEqual([{ id: 'c_old' }]);
      } finally {
        db.close();
      }
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps the list counts exact when rows change in place (triggers on update)', async () => {
    const dir = tempDir();
    const store = await createLogStore({ dataDir: dir });
    try {
      await store.insertBatch([makeRecord({ id: 'log_1', model: 'm1' }), makeRecord({ id: 'log_2', model: 'm1', created_at: Date.parse('2024-03-02T10:00:00Z') })]);
      await store.list({}, 1, 1); // a read moves the staged rows into call_logs
      const db = new Database(join(dir, 'gateway.db'));
      db.prepare("UPDATE call_logs SET model = 'm2', created_at = created_at + 3600000 WHERE id = 'log_2'").run();
      db.close();
      expect(await store.list({ model: 'm1' }, 1, 10)).toMatchObject({ total: 1, items: [{ id: 'log_1' }] });
      expect(await store.list({ model: 'm2', start_time: Date.parse('2024-03-02T11:00:00Z') }, 1, 10)).toMatchObject({ total: 1, items: [{ id: 'log_2' }] });
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('deletes old rows in several chunks and counts them all', async () => {
    const dir = tempDir();
    const store = await createLogStore({ dataDir: dir });
    try {
      const base = Date.parse('2024-01-01T00:00:00Z');
      const records = Array.from({ length: 12_001 }, (_, i) => makeRecord({ id: `log_${i}`, created_at: base + i }));
      await store.insertBatch(records);
      expect(await store.deleteOlderThan(base + 11_000)).toBe(11_000);
      expect((await store.list({}, 1, 1)).total).toBe(1_001);
      expect(await store.deleteOlderThan(base + 11_000)).toBe(0);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('sqlite query plans', () => {
  it("reads one key's or one account's calls from the covering index alone, and sorts nothing", async () => {
    const dir = tempDir();
    const file = join(dir, 'gateway.db');
    const migrated = createSqliteLogStore({ file });
    await migrated.migrate();
    await migrated.close();
    const db = new Database(file, { readonly: true });
    sqliteBreakdownOf(db);
    try {
      const plan = (sql: string, params: unknown[]) =>
        (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail).join('\n');
      // The calls newer than the limit-th's time, as the breakdown folds them.
      const newer = { start_time: 1_000, end_time: 1e13 };
      const everything = { start_time: 0, end_time: 1e13 };
      for (const by of ['model', 'provider', 'key', 'account', 'group'] as const) {
        const scopes = [
          [{ account_id: 'a', api_key_id: 'k' }, 'call_logs_key_breakdown', 'api_key_id'],
          [{ api_key_id: 'k' }, 'call_logs_key_breakdown', 'api_key_id'],
          [{ account_id: 'a' }, 'call_logs_account_breakdown', 'account_id'],
        ] as const;
        for (const [scope, index, column] of scopes) {
          const fold = logWhere({ ...newer, ...scope }, () => '?');
          expect(plan(foldStatementSql(by, fold.sql), fold.params)).toBe(`SEARCH call_logs USING COVERING INDEX ${index} (${column}=? AND created_at>? AND created_at<?)`);
          const edge = logWhere({ ...everything, ...scope }, () => '?');
          const probe = plan(`SELECT created_at FROM call_logs ${edge.sql} ORDER BY created_at DESC LIMIT 2 OFFSET ?`, [...edge.params, 9]);
          expect(probe).toContain(`USING COVERING INDEX ${index}`);
          expect(probe).not.toContain('TEMP B-TREE');
        }
      }
      // Over all accounts, the range walks the time index: no sort either.
      const all = logWhere(newer, () => '?');
      expect(plan(foldStatementSql('group', all.sql), all.params)).toBe('SEARCH call_logs USING INDEX call_logs_created (created_at>? AND created_at<?)');
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('sqlite migrations across processes', () => {
  it('several processes (cluster workers) migrating one new file at once all succeed', async () => {
    const { spawn } = await import('node:child_process');
    const dir = mkdtempSync(join(tmpdir(), 'gw-sqlite-race-'));
    try {
      // All start migrating at the same instant, once loaded, to make them collide.
      const start = Date.now() + 4000;
      const script = `import { createLogStore } from './src/features/logs/log-store.ts';
        while (Date.now() < ${start}) await new Promise((r) => setTimeout(r, 1));
        const store = await createLogStore({ dataDir: ${JSON.stringify(dir)} });
        await store.close();`;
      let errors = '';
      const codes = await Promise.all(
        Array.from({ length: 6 }, () =>
          new Promise<number | null>((done) => {
            const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'ignore', 'pipe'] });
            child.stderr!.on('data', (chunk) => (errors += chunk));
            child.once('exit', done);
          }),
        ),
      );
      expect(codes, errors).toEqual([0, 0, 0, 0, 0, 0]);
      const db = new Database(join(dir, 'gateway.db'));
      const versions = db.prepare('SELECT version FROM schema_migrations ORDER BY version').all();
      db.close();
      expect(versions.length).toBeGreaterThan(0);
      expect(new Set(versions.map((v) => (v as { version: number }).version)).size).toBe(versions.length);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
