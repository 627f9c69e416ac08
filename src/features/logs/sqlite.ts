/**
 * The embedded log store: better-sqlite3 at `${dataDir}/gateway.db` (WAL, synchronous=NORMAL).
 * better-sqlite3 is synchronous and blocks its thread for a whole batch transaction, so the
 * gateway never runs this on its event loop: sqlite-threaded.ts runs it in a worker thread
 * (sqlite-worker.ts). Direct use is for that worker, tools and tests.
 */
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { openSqliteFile } from '../../store/sqlite-file.ts';
import { fromScaled, toNano } from '../../kernel/decimal.ts';
import { pageWindow, rollupWhere } from './filter-sql.ts';
import { storableText } from './storable.ts';
import { sqliteMigrations } from './migrations-sqlite.ts';
import { assertUsableSchema, type AppliedMigration } from './schema-compat.ts';
import { normalizeRecord, toDetail, toListItem } from './rows.ts';
import { BODY_COLUMNS, detailSql } from './bodies.ts';
import { rollupTable, type LogFilter, type LogGroupBy, type LogRecord, type LogStore, type RollupFilter, type RollupGrouping } from './types.ts';
import { toRollupRow } from './rollup-row.ts';
import { sqliteBreakdownOf } from './breakdown-sqlite.ts';
import { countableWindow, listByCounts } from './count-list.ts';
import { plainPage, sqliteCountSource } from './sqlite-counts.ts';
import { createStaging, STAGED_COLUMNS, type Staging, type StagingOptions } from './sqlite-staging.ts';

export interface SqliteLogStoreOptions {
  /** Directory of `gateway.db`; created when missing. Use `file` instead for a custom path. */
  dataDir?: string;
  /** Full database path (`:memory:` works for tests). */
  file?: string;
  /** When staged rows move into call_logs (sqlite-staging.ts); tests shorten them. */
  staging?: StagingOptions;
}

const NANO_PER_UNIT = 9;
const DELETE_CHUNK = 5_000;
/** WAL pages between automatic checkpoints of the call log (SQLite's default: 1,000). */
export const WAL_CHECKPOINT_PAGES = 4_000;

/** Opens (creating if needed) the SQLite log store. Call `migrate()` before use. */
export function createSqliteLogStore(options: SqliteLogStoreOptions): LogStore {
  const file = options.file ?? join(options.dataDir ?? './data', 'gateway.db');
  const db = openSqliteFile(file);
  // 8 MiB of page cache (default 2 MiB): the indexes' right edges and the rollup stay in memory.
  // 32 MiB filled up under load and stayed resident (bench/README.md, issue 18).
  db.pragma('cache_size = -8192');
  // Checkpoint every 4,000 WAL pages (16 MiB) instead of 1,000: each batch rewrites the same right
  // edges of a dozen B-trees, and a checkpoint copies only their newest version, so fewer
  // checkpoints copy fewer pages per row (log-insert.ts: −9 to −15 % CPU a row, bench/README.md).
  db.pragma(`wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`);

  let prepared: { statements: ReturnType<typeof prepare>; staging: Staging } | undefined;
  const ready = () =>
    (prepared ??= { statements: prepare(db), staging: createStaging(db, (write) => inMemoryTemp(db, write), options.staging) });
  /** Before a read: this process's staged rows move into call_logs, so the read sees every committed row. */
  const settled = () => {
    const store = ready();
    store.staging.settle();
    return store.statements;
  };
  const breakdown = sqliteBreakdownOf(db);

  return {
    kind: 'sqlite',

    async migrate() {
      db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL, min_reader INTEGER)`);
      // A table made before min_reader existed (schema-compat.ts) gets it, once, under the write lock.
      const hasMinReader = db.prepare("SELECT 1 FROM pragma_table_info('schema_migrations') WHERE name = 'min_reader'");
      if (!hasMinReader.get()) {
        db.transaction(() => {
          if (!hasMinReader.get()) db.exec('ALTER TABLE schema_migrations ADD COLUMN min_reader INTEGER');
        }).immediate();
      }
      const rows = db.prepare('SELECT version, min_reader FROM schema_migrations').all() as AppliedMigration[];
      assertUsableSchema(rows, sqliteMigrations, `the SQLite call log (${file})`);
      const applied = new Set(rows.map((r) => r.version));
      const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at, min_reader) VALUES (?, ?, ?, ?)');
      const done = db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?');
      for (const m of sqliteMigrations) {
        if (applied.has(m.version)) continue;
        // Cluster workers share the file and may start together: check again under the write
        // lock (IMMEDIATE), so only the first applies a migration and the others skip it.
        db.transaction(() => {
          if (done.get(m.version)) return;
          db.exec(m.sql);
          record.run(m.version, m.name, Date.now(), m.minReader ?? null);
        }).immediate();
      }
      // Rows a process staged and never moved (it was killed) are this start's first move.
      ready().staging.moveLeftovers();
    },

    async insertBatch(records) {
      if (records.length === 0) return;
      const { statements, staging } = ready();
      inMemoryTemp(db, () => statements.stageAll(records));
      staging.staged(records.length);
    },

    async list(filter: LogFilter, page: number, pageSize: number) {
      settled();
      const { limit, offset } = pageWindow(page, pageSize);
      const window = countableWindow(filter);
      const { rows, total } = window
        ? await listByCounts(sqliteCountSource(db, filter), window, offset, limit)
        : plainPage(db, filter, limit, offset);
      return { items: rows.map(toListItem), total };
    },

    async get(id: string) {
      const row = settled().get.get(storableText(id)) as Record<string, unknown> | undefined;
      return row ? toDetail(row) : null;
    },

    async breakdown(filter: LogFilter, by: LogGroupBy, limit: number) {
      settled();
      return db.transaction(() => breakdown(filter, by, limit))();
    },

    async deleteOlderThan(ms: number) {
      // Retention may remove millions of rows: delete in chunks and yield between them, so the
      // synchronous driver never holds the event loop (or the write lock) for long.
      const { deleteOlder } = settled();
      let total = 0;
      for (;;) {
        const n = deleteOlder.run(Math.floor(ms), DELETE_CHUNK).changes;
        total += n;
        if (n < DELETE_CHUNK) return total;
        await new Promise((r) => setImmediate(r));
      }
    },

    async rollup(fromMs: number, toMs: number, filter: RollupFilter, groupBy: RollupGrouping) {
      settled();
      const where = rollupWhere(fromMs, toMs, filter, () => '?');
      const sums = `SUM(request_count) AS request_count, SUM(prompt_tokens) AS prompt_tokens,
          SUM(completion_tokens) AS completion_tokens, SUM(total_tokens) AS total_tokens,
          SUM(latency_sum) AS latency_sum, SUM(input_cost_nano) AS input_cost_nano,
          SUM(output_cost_nano) AS output_cost_nano`;
      const table = rollupTable(fromMs, toMs, filter, groupBy);
      const perBucket = `SELECT bucket_ms, '' AS model, ${sums} FROM ${table} ${where.sql}
          GROUP BY bucket_ms ORDER BY bucket_ms`;
      // Per model: first sum per (bucket, model), which streams in primary-key order, then
      // fold the few remaining rows; a direct GROUP BY model would sort every rollup row.
      const perModel = `SELECT 0 AS bucket_ms, model, ${sums} FROM (
          SELECT bucket_ms, model, ${sums}
          FROM ${table} ${where.sql} GROUP BY bucket_ms, model)
        GROUP BY model ORDER BY model`;
      const stmt = db.prepare(groupBy === 'model' ? perModel : perBucket);
      // BigInt results: nano sums pass 2^53 after about nine million yuan.
      const rows = stmt.safeIntegers(true).all(...where.params) as Record<string, bigint | string>[];
      return rows.map((r) =>
        toRollupRow(r, fromScaled(BigInt(r.input_cost_nano!), NANO_PER_UNIT), fromScaled(BigInt(r.output_cost_nano!), NANO_PER_UNIT)),
      );
    },

    async ping() {
      const t0 = performance.now();
      db.prepare('SELECT 1').get();
      return performance.now() - t0;
    },

    async close() {
      if (!db.open) return;
      // SIGTERM's path: what is staged moves before the file closes. If the move fails, the rows
      // stay staged (committed) for the next start, and the file closes all the same.
      try {
        prepared?.staging.settle();
      } finally {
        prepared?.staging.dispose();
        db.close();
      }
    },
  };
}

function prepare(db: Database.Database) {
  const statements = prepareStatements(db);
  return {
    ...statements,
    // Made once: better-sqlite3 builds a transaction's wrapper functions anew on each call of db.transaction.
    stageAll: db.transaction((batch: LogRecord[]) => stageRows(statements, batch)),
  };
}

/**
 * A batch's rows into call_logs_staged and their bodies into call_log_bodies, inside the caller's
 * transaction; the list counts and the rollup are added when the rows move (sqlite-staging.ts).
 */
function stageRows(s: ReturnType<typeof prepareStatements>, batch: LogRecord[]): void {
  for (const raw of batch) {
    const r = normalizeRecord(raw);
    s.stage.run(rowValues(r, toNano(r.input_cost), toNano(r.output_cost)));
    s.insertBodies.run(bodyValues(r), r.id);
  }
}

/**
 * Runs a write with SQLite's temp files in memory. The count and rollup triggers make an INSERT
 * keep a statement journal, which outgrows its 64 KiB in memory and spills to a temp file: a
 * pwrite per page (log-insert.ts: system time per row halved, bench/README.md, issue 37). Reads
 * keep them on disk, so that a large sort (a migration's CREATE INDEX, a GROUP BY) can still
 * spill. Inside a caller's transaction SQLite refuses the change, and the caller's setting stays.
 * (exec, not a prepared statement: SQLite applies this pragma when it compiles it.)
 */
function inMemoryTemp(db: Database.Database, write: () => void): void {
  const toggle = !db.inTransaction;
  if (toggle) db.exec('PRAGMA temp_store = MEMORY');
  try {
    write();
  } finally {
    if (toggle) db.exec('PRAGMA temp_store = DEFAULT');
  }
}

function prepareStatements(db: Database.Database) {
  // rowValues and bodyValues spell the columns out: a column added to LOG_COLUMNS alone must not shift them.
  const empty = normalizeRecord({} as LogRecord);
  if (rowValues(empty, 0n, 0n).length !== STAGED_COLUMNS.length || bodyValues(empty).length !== BODY_COLUMNS.length + 1) {
    throw new Error('sqlite.ts rowValues or bodyValues does not list every column of INLINE_COLUMNS or BODY_COLUMNS');
  }
  return {
    // A row already staged (a spilled batch written twice) is ignored; one already in call_logs is dropped by the move.
    stage: db.prepare(
      `INSERT INTO call_logs_staged (${STAGED_COLUMNS.join(', ')}) VALUES (${STAGED_COLUMNS.map(() => '?').join(', ')}) ON CONFLICT (id) DO NOTHING`,
    ),
    // Not for a call already logged (a spilled batch written twice): its first copy's texts stay,
    // in its side row or inline (the previous release). Nor for one already staged (the conflict).
    insertBodies: db.prepare(
      `INSERT INTO call_log_bodies (id, ${BODY_COLUMNS.join(', ')})
        SELECT ?, ${BODY_COLUMNS.map(() => '?').join(', ')} WHERE NOT EXISTS (SELECT 1 FROM call_logs WHERE id = ?)
        ON CONFLICT (id) DO NOTHING`,
    ),
    get: db.prepare(detailSql('?')),
    deleteOlder: db.prepare(
      'DELETE FROM call_logs WHERE rowid IN (SELECT rowid FROM call_logs WHERE created_at < ? LIMIT ?)',
    ),
  };
}

/**
 * A normalized record as the staging insert's parameters, in `INLINE_COLUMNS` order then the two nano
 * costs: an array literal, not a mapping over the column names (this runs for every row).
 */
function rowValues(r: LogRecord, inNano: bigint, outNano: bigint): unknown[] {
  return [
    r.id, r.created_at, r.api_key_id, r.api_key_name, r.account_id, r.group_id, r.provider_id, r.model,
    r.endpoint, r.request_tokens, r.response_tokens, r.cached_tokens, r.reasoning_tokens, r.status,
    r.http_status, r.error_code, r.latency_ms, r.ttft_ms, r.ip, r.user_agent, r.stream ? 1 : 0,
    r.cache_hit ? 1 : 0, r.input_cost, r.output_cost, r.currency,
    r.billed ? 1 : 0, r.cache_similarity ?? null, r.sanitized ? 1 : 0, r.trace_id ?? null, inNano, outNano,
  ];
}

/** A normalized record's side row (bodies.ts): its id, then `BODY_COLUMNS` in order. */
function bodyValues(r: LogRecord): unknown[] {
  return [r.id, r.request, r.response, JSON.stringify(r.attempts), r.error_message, r.guardrails ? JSON.stringify(r.guardrails) : null];
}

