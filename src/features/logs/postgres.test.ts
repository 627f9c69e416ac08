/**
 * The shared store suite against the real local PostgreSQL, one throwaway schema per test.
 * It fails (never skips) when PostgreSQL is unreachable: CI must run it.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createLogStore } from './log-store.ts';
import { makeRecord } from './test-records.ts';
import { describeBreakdown } from './breakdown.suite.ts';
import { describeLogStore } from './store.suite.ts';
import { describeListContract } from './list.suite.ts';
import { describeBodies } from './bodies.suite.ts';
import { logWhere } from './filter-sql.ts';
import { postgresBreakdownSql } from './breakdown-postgres.ts';
import { timesFrom } from './breakdown-sql.ts';
import type { LogGroupBy } from './types.ts';

const url = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';

async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

async function openStore() {
  const schema = `gw_logs_test_${randomBytes(6).toString('hex')}`;
  const store = await createLogStore({ dataDir: '/nonexistent', databaseUrl: url, pgSchema: schema });
  return {
    store,
    schema,
    async query(sql: string) {
      const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
      await client.connect();
      try {
        return (await client.query(sql)).rows as Record<string, unknown>[];
      } finally {
        await client.end();
      }
    },
    async cleanup() {
      await store.close();
      await dropSchema(schema);
    },
  };
}

describeLogStore('postgres', openStore);
describeBreakdown('postgres', openStore);
describeListContract('postgres', openStore);
describeBodies('postgres', openStore);

/** A TCP server that accepts connections and never answers (a hung host, an orphaned proxy). */
async function silentServer(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as { port: number };
  return {
    url: `postgres://postgres@127.0.0.1:${port}/test`,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}

describe('postgres that does not answer at start', () => {
  it('a server that accepts the connection and stays silent does not hold the start: the store is deferred, with a warning', async () => {
    const silent = await silentServer();
    const warnings: string[] = [];
    try {
      const started = Date.now();
      const store = await createLogStore({
        dataDir: '/nonexistent', databaseUrl: silent.url, pgTimeouts: { connectTimeoutMs: 300 }, onError: (e) => warnings.push(e.message),
      });
      expect(Date.now() - started).toBeLessThan(3000);
      expect(warnings).toEqual([expect.stringMatching(/^log database unreachable at start, will retry: .*timeout/)]);
      await expect(store.insertBatch([makeRecord({ id: 'log_silent' })])).rejects.toThrow(/not ready|timeout/);
      await store.close();
    } finally {
      await silent.close();
    }
  }, 10_000);

  it('a migration stuck behind a lock is bounded, and runs once the lock is gone', async () => {
    const schema = `gw_logs_test_${randomBytes(6).toString('hex')}`;
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    // The lock every migration takes first (postgres.ts MIGRATION_LOCK), held by "another instance".
    await holder.query('SELECT pg_advisory_lock(7340211901)');
    const warnings: string[] = [];
    let store: Awaited<ReturnType<typeof createLogStore>> | undefined;
    try {
      store = await createLogStore({
        dataDir: '/nonexistent', databaseUrl: url, pgSchema: schema, pgTimeouts: { queryTimeoutMs: 300 }, onError: (e) => warnings.push(e.message),
      });
      expect(warnings).toEqual([expect.stringMatching(/unreachable at start, will retry: Query read timeout/)]);
      await holder.query('SELECT pg_advisory_unlock(7340211901)');
      const deadline = Date.now() + 8000;
      for (;;) {
        try {
          await store.insertBatch([makeRecord({ id: 'log_late' })]);
          break;
        } catch (error) {
          if (Date.now() > deadline) throw error;
          await new Promise((r) => setTimeout(r, 200));
        }
      }
      expect(await store.get('log_late')).toMatchObject({ id: 'log_late' });
    } finally {
      await store?.close();
      await holder.end();
      await dropSchema(schema);
    }
  }, 15_000);
});

describe('postgres that stops answering after start', () => {
  it('a query stuck behind a lock is bounded: reads answer 503 log_store_unavailable, writes fail to be retried, and both work once the lock is gone', async () => {
    const schema = `gw_logs_test_${randomBytes(6).toString('hex')}`;
    const store = await createLogStore({ dataDir: '/nonexistent', databaseUrl: url, pgSchema: schema, pgTimeouts: { queryTimeoutMs: 300 } });
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    try {
      await store.insertBatch([makeRecord({ id: 'log_before' })]);
      await holder.query('BEGIN');
      await holder.query(`LOCK TABLE ${schema}.call_logs IN ACCESS EXCLUSIVE MODE`);
      const started = Date.now();
      const refused = await store.list({}, 1, 20).then(() => null, (error: unknown) => error);
      expect(refused).toMatchObject({ status: 503, code: 'log_store_unavailable', headers: { 'retry-after': '5' } });
      await expect(store.get('log_before')).rejects.toMatchObject({ status: 503 });
      await expect(store.insertBatch([makeRecord({ id: 'log_during' })])).rejects.toThrow(/timeout/);
      expect(Date.now() - started).toBeLessThan(5000);
      await holder.query('ROLLBACK');
      await store.insertBatch([makeRecord({ id: 'log_during' })]);
      expect((await store.list({}, 1, 20)).total).toBe(2);
    } finally {
      await holder.end();
      await store.close();
      await dropSchema(schema);
    }
  }, 15_000);
});

describe('postgres log store specifics', () => {
  it('migrates concurrently started instances once', async () => {
    const h = await openStore();
    try {
      const others = await Promise.all([1, 2, 3].map(() =>
        createLogStore({ dataDir: '/nonexistent', databaseUrl: url, pgSchema: h.schema })));
      await Promise.all(others.map((s) => s.close()));
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const { rows } = await client.query(`SELECT version FROM ${h.schema}.schema_migrations`);
      await client.end();
      expect(rows).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }, { version: 5 }, { version: 6 }, { version: 7 }, { version: 8 }, { version: 9 }, { version: 10 }, { version: 11 }, { version: 12 }, { version: 13 }, { version: 14 }]);
    } finally {
      await h.cleanup();
    }
  });

  it('inserts through prepared statements of padded sizes: every row once, with its counts, rollup and bodies', async () => {
    const h = await openStore();
    try {
      const at = Date.parse('2024-03-01T10:05:00Z');
      let n = 0;
      const batch = (size: number) =>
        Array.from({ length: size }, () => makeRecord({ id: `p_${n++}`, created_at: at, request_tokens: 1, request: JSON.stringify({ n }) }));
      // 1 (no padding), 3 (padded to 4), 300 (256, then 44 padded to 64), 3 again (the statement reused).
      for (const size of [1, 3, 300, 3]) await h.store.insertBatch(batch(size));
      expect((await h.store.list({}, 1, 1)).total).toBe(307);
      const [row] = await h.query(`SELECT (SELECT COUNT(*) FROM call_logs)::int AS calls, (SELECT COUNT(*) FROM call_log_bodies)::int AS bodies,
        (SELECT SUM(request_count) FROM stat_rollup)::int AS rolled, (SELECT SUM(prompt_tokens) FROM stat_rollup_hour_model)::int AS prompt,
        (SELECT SUM(n) FROM call_log_counts_hour)::int AS counted`);
      expect(row).toEqual({ calls: 307, bodies: 307, rolled: 307, prompt: 307, counted: 307 });
      expect((await h.store.get('p_305'))?.request).toEqual({ n: 306 });
    } finally {
      await h.cleanup();
    }
  });

  it('keeps the hourly rollups by adding new minus old rows per group: batches onto existing rows, and a row moved by hand', async () => {
    const h = await openStore();
    try {
      const at = Date.parse('2024-03-01T10:05:00Z');
      const hour = Date.parse('2024-03-01T10:00:00Z');
      // 40 keys: from the second batch on, each adds to 40 existing rollup rows (the update triggers).
      const batch = (b: number) =>
        Array.from({ length: 40 }, (_, k) =>
          makeRecord({ id: `u_${b}_${k}`, created_at: at, api_key_id: `k${k}`, account_id: `a${k % 4}`, model: 'm1', request_tokens: 2, response_tokens: 3, input_cost: '0.5' }));
      for (let b = 0; b < 3; b++) await h.store.insertBatch(batch(b));
      const byModel = async () =>
        (await h.query(`SELECT model, request_count::int AS calls, prompt_tokens::int AS prompt, input_cost::text AS cost
          FROM stat_rollup_hour_model WHERE bucket_ms = ${hour} ORDER BY model`));
      expect(await byModel()).toEqual([{ model: 'm1', calls: 120, prompt: 240, cost: '60.0' }]);
      expect(await h.query('SELECT DISTINCT request_count::int AS calls FROM stat_rollup_hour')).toEqual([{ calls: 3 }]);
      // An operator's fix: one key's calls were another model's. Its sums move with it.
      await h.query("UPDATE stat_rollup SET model = 'm2' WHERE api_key_id = 'k0'");
      expect(await byModel()).toEqual([{ model: 'm1', calls: 117, prompt: 234, cost: '58.5' }, { model: 'm2', calls: 3, prompt: 6, cost: '1.5' }]);
      expect(await h.query("SELECT model, request_count::int AS calls FROM stat_rollup_hour WHERE api_key_id = 'k0' ORDER BY model")).toEqual([
        { model: 'm1', calls: 0 },
        { model: 'm2', calls: 3 },
      ]);
    } finally {
      await h.cleanup();
    }
  });

  it("can read one key's or one account's breakdown from the covering index alone, sorting nothing", async () => {
    const h = await openStore();
    const client = new pg.Client({ connectionString: url, options: `-c search_path=${h.schema}` });
    await client.connect();
    try {
      // Account 'a' holds key 'k' and three others, so that the statistics show the key's index
      // as the narrower one (the breakdown names the account beside its key, as a plain term).
      await h.store.insertBatch(Array.from({ length: 40 }, (_, i) => makeRecord({
        id: `log_${i}`, account_id: i < 32 ? 'a' : 'b', api_key_id: i < 8 ? 'k' : `k${i % 4}${i < 32 ? 'a' : 'b'}`, ttft_ms: i % 2 ? 5 : null,
      })));
      // An index-only scan needs pages the visibility map marks all-visible (autovacuum's job);
      // with a few rows the planner would rather read the table, so the test takes that away.
      await client.query('VACUUM ANALYZE call_logs');
      await client.query('SET enable_seqscan = off');
      await client.query('SET enable_bitmapscan = off');
      const explain = async (sql: string, params: unknown[]) =>
        (await client.query(`EXPLAIN ${sql}`, params)).rows.map((r) => r['QUERY PLAN'] as string).join('\n');
      // The fold of a time range, and the walk that finds the limit-th call's time.
      const plan = async (filter: Parameters<typeof logWhere>[0], by: LogGroupBy) => {
        const where = logWhere(filter, (i) => `$${i}`, { statistics: true });
        return explain(postgresBreakdownSql(by, where.sql), where.params);
      };
      const walk = async (filter: Parameters<typeof logWhere>[0]) => {
        const where = logWhere(filter, (i) => `$${i}`, { statistics: true });
        return explain(timesFrom(where.sql, `$${where.params.length + 1}`, 2), [...where.params, 10]);
      };
      const month = { start_time: 0, end_time: 1e13 };
      for (const by of ['model', 'provider', 'key', 'account', 'group'] as const) {
        const scopes = [
          [{ ...month, account_id: 'a', api_key_id: 'k' }, 'call_logs_key_breakdown'],
          [{ ...month, account_id: 'a' }, 'call_logs_account_breakdown'],
        ] as const;
        for (const [filter, index] of scopes) {
          const text = await plan(filter, by);
          expect(text).toContain(`Index Only Scan using ${index} on call_logs`);
          expect(text).not.toContain('Sort');
          expect(await walk(filter)).toContain(`Index Only Scan Backward using ${index} on call_logs`);
        }
      }
      // Over all accounts the time index: the walk reads it alone, backwards.
      expect(await walk(month)).toContain('Index Only Scan Backward using call_logs_created_id on call_logs');
      expect(await plan(month, 'model')).not.toContain('Sort');
    } finally {
      await client.end();
      await h.cleanup();
    }
  });

  it("folds a breakdown's two halves in one snapshot: calls written between their statements are in neither", async () => {
    const h = await openStore();
    const writer = await createLogStore({ dataDir: '/nonexistent', databaseUrl: url, pgSchema: h.schema });
    const T0 = Date.parse('2024-05-01T00:00:00Z');
    const call = (i: number) => makeRecord({ id: `c${String(i).padStart(4, '0')}`, created_at: T0 + i * 1000, model: `m${i % 3}`, latency_ms: 100 + i });
    const query = pg.Client.prototype.query;
    let written = false;
    try {
      await h.store.insertBatch(Array.from({ length: 100 }, (_, i) => call(i)));
      const before = await h.store.breakdown({}, 'model', 60);
      // Right before the second connection's first statement (the walk to the middle call), newer
      // calls commit: had it a snapshot of its own, the newer half would start from them.
      pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
        if (!written && typeof args[0] === 'string' && args[0].includes('ORDER BY created_at DESC LIMIT 1 OFFSET')) {
          written = true;
          return writer.insertBatch(Array.from({ length: 40 }, (_, i) => call(100 + i))).then(() => (query as (...a: unknown[]) => unknown).apply(this, args));
        }
        return (query as (...a: unknown[]) => unknown).apply(this, args);
      } as typeof query;
      const during = await h.store.breakdown({}, 'model', 60);
      pg.Client.prototype.query = query;
      expect(written).toBe(true);
      expect(during).toEqual(before);
      // The calls did land: the next answer reads them.
      expect((await h.store.breakdown({}, 'model', 60)).groups).not.toEqual(before.groups);
    } finally {
      pg.Client.prototype.query = query;
      await writer.close();
      await h.cleanup();
    }
  });

  it('keeps the list counts exact when rows change in place (triggers on update)', async () => {
    const h = await openStore();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await h.store.insertBatch([makeRecord({ id: 'log_1', model: 'm1' }), makeRecord({ id: 'log_2', model: 'm1', created_at: Date.parse('2024-03-02T10:00:00Z') })]);
      await client.query(`UPDATE ${h.schema}.call_logs SET model = 'm2', created_at = created_at + 3600000 WHERE id = 'log_2'`);
      expect(await h.store.list({ model: 'm1' }, 1, 10)).toMatchObject({ total: 1, items: [{ id: 'log_1' }] });
      expect(await h.store.list({ model: 'm2', start_time: Date.parse('2024-03-02T11:00:00Z') }, 1, 10)).toMatchObject({ total: 1, items: [{ id: 'log_2' }] });
    } finally {
      await client.end();
      await h.cleanup();
    }
  });

  it('stores NUL characters without failing the batch, and keeps costs exact', async () => {
    const h = await openStore();
    try {
      await h.store.insertBatch([makeRecord({
        id: 'log_nul', user_agent: 'a\u0000b', request: JSON.stringify({ messages: [{ role: 'user', content: 'x\u0000y \\u0000' }] }),
        input_cost: '0.000000000001', output_cost: '123456789.123456789012',
      })]);
      const got = await h.store.get('log_nul');
      expect(got).toMatchObject({ user_agent: 'a\ufffdb', request: { messages: [{ role: 'user', content: 'x\ufffdy \\u0000' }] }, sanitized: true });
      const rows = await h.store.rollup(0, Date.parse('2030-01-01'), {}, 'model');
      expect(rows[0]).toMatchObject({ input_cost: '0.000000000001', output_cost: '123456789.123456789012' });
    } finally {
      await h.cleanup();
    }
  });
});
