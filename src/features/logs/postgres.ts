/**
 * The PostgreSQL log store (`DATABASE_URL`): the same schema as SQLite with exact NUMERIC costs.
 * A batch is one transaction of multi-row `INSERT … ON CONFLICT (id) DO NOTHING` statements;
 * each feeds only the rows it really inserted into the rollup UPSERT (a data-modifying CTE),
 * so a replayed batch never counts twice, even with several gateway instances writing.
 */
import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { pageWindow, rollupWhere } from './filter-sql.ts';
import { storableText } from './storable.ts';
import { postgresMigrations } from './migrations-postgres.ts';
import { assertUsableSchema, type AppliedMigration } from './schema-compat.ts';
import { normalizeRecord, toDetail, toListItem } from './rows.ts';
import { BODY_COLUMNS, INLINE_COLUMNS, detailSql } from './bodies.ts';
import { BUCKET_MS, rollupTable } from './types.ts';
import type { LogFilter, LogGroupBy, LogRecord, LogStore, RollupFilter, RollupGrouping } from './types.ts';
import { toRollupRow } from './rollup-row.ts';
import { foldNewest } from './breakdown-postgres.ts';
import { countableWindow, listByCounts } from './count-list.ts';
import { inSnapshot, plainPage, postgresCountSource } from './postgres-counts.ts';

export interface PostgresLogStoreOptions {
  connectionString: string;
  /** Schema for the tables (created if missing); default: the server's search_path. */
  schema?: string;
  /** Pool size (default 5). */
  max?: number;
  /** Called on errors of idle pooled connections (which would otherwise crash the process). */
  onError?: (error: Error) => void;
  /** Longest wait for a connection, new or pooled (default 10 s). */
  connectTimeoutMs?: number;
  /** Longest wait for any one query, the migration's included (default 30 s). */
  queryTimeoutMs?: number;
}

/**
 * The insert is a prepared statement, parsed and planned once per connection and size: parsing
 * and planning a 200-row statement of 7,000 parameters anew for every batch was over a third of
 * the backend's CPU per row (log-insert.ts: 72 -> 45 us with one key, bench/README.md, issue 37).
 * A chunk is padded to the next power of two with copies of its last row, which ON CONFLICT (id)
 * skips (a call is inserted and counted once), so a connection keeps at most nine statements
 * (~4 MiB of the backend's memory; one per size from 1 to 200 took 170 MiB). 35 parameters a
 * row: 256 rows stay far below PostgreSQL's 65,535.
 */
const MAX_ROWS_PER_STATEMENT = 256;
/** Parameters of one row: its call_logs columns, then its id and side-row columns (recordValues). */
const ROW_PARAMS = INLINE_COLUMNS.length + 1 + BODY_COLUMNS.length;

/** The smallest power of two at least `rows`: the size of the statement that inserts them. */
function statementRows(rows: number): number {
  let size = 1;
  while (size < rows) size <<= 1;
  return size;
}
const MIGRATION_LOCK = 7_340_211_901;
/**
 * Without these a server that accepts the TCP connection but never answers (a hung host, a
 * proxy whose backend is gone) holds a connect or a query forever, and the start with it.
 */
const CONNECT_TIMEOUT_MS = 10_000;
const QUERY_TIMEOUT_MS = 30_000;
const RETURNED = 'id, created_at, account_id, api_key_id, model, request_tokens, response_tokens, latency_ms, billed, input_cost, output_cost';

/**
 * Connects a pool (lazily) for the PostgreSQL log store. Call `migrate()` before use. The driver
 * is loaded here, not at start: a gateway logging to SQLite never loads it.
 */
export async function createPostgresLogStore(options: PostgresLogStoreOptions): Promise<LogStore> {
  const { default: pg } = await import('pg');
  const schema = options.schema;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid schema name: ${schema}`);
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max ?? 5,
    options: schema ? `-c search_path=${schema}` : undefined,
    connectionTimeoutMillis: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
    // Every query is bounded: a batch or a logs page stuck behind a lock or a hung server fails
    // (the batch is retried, the page answers 503) instead of holding a pooled connection forever.
    query_timeout: options.queryTimeoutMs ?? QUERY_TIMEOUT_MS,
  });
  pool.on('error', (e) => options.onError?.(e));

  /** Run `work` in one transaction on one pooled connection, rolled back on any failure. */
  async function inTransaction(work: (client: pg.PoolClient) => Promise<void>): Promise<void> {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await work(client);
      await client.query('COMMIT');
      client.release();
    } catch (e) {
      // A connection whose query timed out may never answer a ROLLBACK: drop it instead (the
      // server rolls back a transaction whose connection is gone).
      if (isQueryTimeout(e)) client.release(e as Error);
      else {
        await client.query('ROLLBACK').catch(() => {});
        client.release();
      }
      throw e;
    }
  }

  /**
   * Run `work` on a read-only REPEATABLE READ transaction, handing it a second connection on
   * request that reads the same snapshot (pg_export_snapshot): work split over two connections
   * then sees one state of the tables, as one statement would.
   */
  async function withSharedSnapshot<T>(work: (first: pg.PoolClient, second: () => Promise<pg.PoolClient>) => Promise<T>): Promise<T> {
    const clients: pg.PoolClient[] = [];
    const begin = async () => {
      const client = await pool.connect();
      clients.push(client);
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      return client;
    };
    let failure: unknown;
    try {
      const first = await begin();
      return await work(first, async () => {
        // The transaction's one snapshot (REPEATABLE READ), whenever it is exported.
        const { rows } = await first.query('SELECT pg_export_snapshot() AS id');
        const snapshot = String(rows[0].id);
        if (!/^[0-9A-F-]+$/i.test(snapshot)) throw new Error(`unexpected snapshot id ${snapshot}`);
        const second = await begin();
        await second.query(`SET TRANSACTION SNAPSHOT '${snapshot}'`);
        return second;
      });
    } catch (e) {
      failure = e;
      throw e;
    } finally {
      for (const client of clients) {
        // A connection whose query timed out may never answer: drop it (see inTransaction).
        if (isQueryTimeout(failure)) client.release(failure as Error);
        else await client.query(failure ? 'ROLLBACK' : 'COMMIT').then(() => client.release(), (e: Error) => client.release(e));
      }
    }
  }

  /** Whether a breakdown is folding in two halves now (see breakdown). */
  let splitting = false;

  return {
    kind: 'postgres',

    migrate() {
      return inTransaction(async (client) => {
        // Each statement is bounded (the pool's query_timeout): a stuck one fails the migration as
        // a down server does, and the store then migrates later (deferred-migration.ts) instead of
        // holding the start.
        const query = (text: string, values?: unknown[]) => client.query(text, values);
        // Several instances may start together: one migrates, the others wait and find it done.
        await query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
        if (schema) await query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
        await query(`CREATE TABLE IF NOT EXISTS schema_migrations (
          version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL, min_reader INTEGER)`);
        // A table made before min_reader existed (schema-compat.ts) gets it.
        await query('ALTER TABLE schema_migrations ADD COLUMN IF NOT EXISTS min_reader INTEGER');
        const { rows } = await query('SELECT version, min_reader FROM schema_migrations');
        assertUsableSchema(rows as AppliedMigration[], postgresMigrations, `the PostgreSQL call log${schema ? ` (schema ${schema})` : ''}`);
        const applied = new Set(rows.map((r) => Number(r.version)));
        for (const m of postgresMigrations) {
          if (applied.has(m.version)) continue;
          await query(m.sql);
          await query('INSERT INTO schema_migrations (version, name, applied_at, min_reader) VALUES ($1, $2, $3, $4)', [
            m.version, m.name, Date.now(), m.minReader ?? null,
          ]);
        }
      });
    },

    async insertBatch(records) {
      if (records.length === 0) return;
      await inTransaction(async (client) => {
        for (let i = 0; i < records.length; ) {
          const take = Math.min(records.length - i, MAX_ROWS_PER_STATEMENT);
          const rows = statementRows(take);
          const values = records.slice(i, i + take).map(normalizeRecord).flatMap(recordValues);
          const last = values.slice(-ROW_PARAMS);
          for (let pad = take; pad < rows; pad++) values.push(...last);
          await client.query({ name: `gw_log_insert_${rows}`, text: insertSqlOf(rows), values });
          i += take;
        }
      });
    },

    async list(filter: LogFilter, page: number, pageSize: number) {
      const { limit, offset } = pageWindow(page, pageSize);
      const window = countableWindow(filter);
      const { rows, total } = window
        ? await inSnapshot(pool, (client) => listByCounts(postgresCountSource(client, filter), window, offset, limit))
        : await plainPage(pool, filter, limit, offset);
      return { items: rows.map(toListItem), total };
    },

    async get(id: string) {
      const { rows } = await pool.query(detailSql('$1'), [storableText(id)]);
      return rows[0] ? toDetail(rows[0]) : null;
    },

    async breakdown(filter: LogFilter, by: LogGroupBy, limit: number) {
      // One split at a time: it holds a connection while it waits for its second, and several
      // doing so could hold the whole pool waiting; the others fold on one connection meanwhile.
      const split = !splitting;
      if (split) splitting = true;
      return withSharedSnapshot((first, second) => foldNewest(by, filter, limit, first, split ? second : undefined)).finally(() => {
        if (split) splitting = false;
      });
    },

    async deleteOlderThan(ms: number) {
      const res = await pool.query('DELETE FROM call_logs WHERE created_at < $1', [Math.floor(ms)]);
      return res.rowCount ?? 0;
    },

    async rollup(fromMs: number, toMs: number, filter: RollupFilter, groupBy: RollupGrouping) {
      const where = rollupWhere(fromMs, toMs, filter, (i) => `$${i}`);
      const table = rollupTable(fromMs, toMs, filter, groupBy);
      const key = groupBy === 'model' ? '0 AS bucket_ms, model' : "bucket_ms, '' AS model";
      const group = groupBy === 'model' ? 'model' : 'bucket_ms';
      const { rows } = await pool.query(
        `SELECT ${key}, SUM(request_count) AS request_count, SUM(prompt_tokens) AS prompt_tokens,
           SUM(completion_tokens) AS completion_tokens, SUM(total_tokens) AS total_tokens,
           SUM(latency_sum) AS latency_sum, SUM(input_cost) AS input_cost, SUM(output_cost) AS output_cost
         FROM ${table} ${where.sql} GROUP BY ${group} ORDER BY ${group}`,
        where.params,
      );
      return rows.map((r) => toRollupRow(r, String(r.input_cost), String(r.output_cost)));
    },

    async ping() {
      const t0 = performance.now();
      await pool.query('SELECT 1');
      return performance.now() - t0;
    },

    async close() {
      await pool.end();
    },
  };
}

/** pg's own client-side timeout of a query (`query_timeout`). */
function isQueryTimeout(error: unknown): boolean {
  return (error as Error)?.message === 'Query read timeout';
}

/** Each side row's parameters are typed: in a bare VALUES list PostgreSQL has no column to infer them from. */
const BODY_TYPES = { request: 'jsonb', response: 'jsonb', attempts: 'jsonb', error_message: 'text', guardrails: 'jsonb' } as const;

/** The insert's text per size, made once (node-pg still compares it with the prepared one's). */
const insertTexts = new Map<number, string>();
function insertSqlOf(rows: number): string {
  let text = insertTexts.get(rows);
  if (text === undefined) insertTexts.set(rows, (text = insertSql(rows)));
  return text;
}

/**
 * One statement per chunk: the rows into call_logs, the side rows (bodies.ts) of the ones it really
 * inserted (a replayed id writes neither), and those into the rollup.
 */
function insertSql(rows: number): string {
  const values: string[] = [];
  const bodies: string[] = [];
  for (let r = 0; r < rows; r++) {
    const at = (c: number) => `$${r * ROW_PARAMS + c + 1}`;
    values.push(`(${INLINE_COLUMNS.map((_, c) => at(c)).join(', ')}, '[]')`);
    const id = at(INLINE_COLUMNS.length);
    bodies.push(`(${id}::text, ${BODY_COLUMNS.map((c, i) => `${at(INLINE_COLUMNS.length + 1 + i)}::${BODY_TYPES[c]}`).join(', ')})`);
  }
  return `WITH ins AS (
      INSERT INTO call_logs (${INLINE_COLUMNS.join(', ')}, attempts) VALUES ${values.join(', ')}
      ON CONFLICT (id) DO NOTHING RETURNING ${RETURNED}
    ), side AS (
      -- ON CONFLICT: an id twice in one chunk is inserted once into call_logs, and joins twice here.
      INSERT INTO call_log_bodies (id, ${BODY_COLUMNS.join(', ')})
      SELECT v.* FROM (VALUES ${bodies.join(', ')}) AS v (id, ${BODY_COLUMNS.join(', ')})
      WHERE v.id IN (SELECT id FROM ins)
      ON CONFLICT (id) DO NOTHING
    )
    INSERT INTO stat_rollup (bucket_ms, account_id, api_key_id, model, request_count, prompt_tokens,
      completion_tokens, total_tokens, latency_sum, input_cost, output_cost)
    SELECT (created_at / ${BUCKET_MS}) * ${BUCKET_MS}, account_id, api_key_id, model, COUNT(*),
      SUM(request_tokens), SUM(response_tokens), SUM(request_tokens + response_tokens), SUM(latency_ms),
      SUM(CASE WHEN billed THEN input_cost ELSE 0 END), SUM(CASE WHEN billed THEN output_cost ELSE 0 END)
    FROM ins GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
    ON CONFLICT (bucket_ms, account_id, api_key_id, model) DO UPDATE SET
      request_count = stat_rollup.request_count + EXCLUDED.request_count,
      prompt_tokens = stat_rollup.prompt_tokens + EXCLUDED.prompt_tokens,
      completion_tokens = stat_rollup.completion_tokens + EXCLUDED.completion_tokens,
      total_tokens = stat_rollup.total_tokens + EXCLUDED.total_tokens,
      latency_sum = stat_rollup.latency_sum + EXCLUDED.latency_sum,
      input_cost = stat_rollup.input_cost + EXCLUDED.input_cost,
      output_cost = stat_rollup.output_cost + EXCLUDED.output_cost`;
}

/**
 * A normalized record's values (its text already storable: NUL, lone surrogates, numbers; see
 * storable.ts): its call_logs columns, then its id and side-row columns.
 */
function recordValues(r: LogRecord): unknown[] {
  const json = (v: unknown) => (v == null ? null : JSON.stringify(v));
  return [
    ...INLINE_COLUMNS.map((c) => r[c] ?? null),
    r.id, r.request, r.response, json(r.attempts), r.error_message, json(r.guardrails),
  ];
}
