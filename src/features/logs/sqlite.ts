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
import { bucketOf, normalizeRecord, toDetail, toListItem } from './rows.ts';
import { BODY_COLUMNS, INLINE_COLUMNS, detailSql } from './bodies.ts';
import { rollupTable, type LogFilter, type LogGroupBy, type LogRecord, type LogStore, type RollupFilter, type RollupGrouping } from './types.ts';
import { toRollupRow } from './rollup-row.ts';
import { sqliteBreakdownOf } from './breakdown-sqlite.ts';
import { countableWindow, listByCounts } from './count-list.ts';
import { plainPage, sqliteCountSource } from './sqlite-counts.ts';
import { countDeltas, type CountDelta } from './count-deltas.ts';
import { COUNT_KEY_COLUMNS, COUNT_UNITS } from './migrations-counts.ts';

export interface SqliteLogStoreOptions {
  /** Directory of `gateway.db`; created when missing. Use `file` instead for a custom path. */
  dataDir?: string;
  /** Full database path (`:memory:` works for tests). */
  file?: string;
}

interface RollupDelta {
  bucket_ms: number;
  account_id: string;
  api_key_id: string;
  model: string;
  request_count: number;
  prompt_tokens: number;
  completion_tokens: number;
  latency_sum: number;
  input_cost_nano: bigint;
  output_cost_nano: bigint;
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

  let stmts: ReturnType<typeof prepare> | undefined;
  const ready = () => (stmts ??= prepare(db));
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
      stmts = prepare(db);
    },

    async insertBatch(records) {
      if (records.length === 0) return;
      const s = ready();
      // The count triggers make every INSERT keep a statement journal, which outgrows its 64 KiB
      // in memory with a batch's dirty pages and spills to a temp file: a pwrite per page
      // (log-insert.ts: system time per row halved, bench/README.md, issue 37). So a batch runs
      // with temp files in memory; reads keep them on disk, so that a large sort (a migration's
      // CREATE INDEX, a GROUP BY) can still spill. Inside a caller's transaction SQLite refuses
      // the change, and the caller's setting stays.
      // (exec, not a prepared statement: SQLite applies this pragma when it compiles it.)
      const toggle = !db.inTransaction;
      if (toggle) db.exec('PRAGMA temp_store = MEMORY');
      try {
        s.insertAll(records);
      } finally {
        if (toggle) db.exec('PRAGMA temp_store = DEFAULT');
      }
    },

    async list(filter: LogFilter, page: number, pageSize: number) {
      const { limit, offset } = pageWindow(page, pageSize);
      const window = countableWindow(filter);
      const { rows, total } = window
        ? await listByCounts(sqliteCountSource(db, filter), window, offset, limit)
        : plainPage(db, filter, limit, offset);
      return { items: rows.map(toListItem), total };
    },

    async get(id: string) {
      const row = ready().get.get(storableText(id)) as Record<string, unknown> | undefined;
      return row ? toDetail(row) : null;
    },

    async breakdown(filter: LogFilter, by: LogGroupBy, limit: number) {
      return db.transaction(() => breakdown(filter, by, limit))();
    },

    async deleteOlderThan(ms: number) {
      // Retention may remove millions of rows: delete in chunks and yield between them, so the
      // synchronous driver never holds the event loop (or the write lock) for long.
      let total = 0;
      for (;;) {
        const n = ready().deleteOlder.run(Math.floor(ms), DELETE_CHUNK).changes;
        total += n;
        if (n < DELETE_CHUNK) return total;
        await new Promise((r) => setImmediate(r));
      }
    },

    async rollup(fromMs: number, toMs: number, filter: RollupFilter, groupBy: RollupGrouping) {
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
      if (db.open) db.close();
    },
  };
}

function prepare(db: Database.Database) {
  const statements = prepareStatements(db);
  return {
    ...statements,
    // Made once: better-sqlite3 builds a transaction's wrapper functions anew on each call of db.transaction.
    insertAll: db.transaction((batch: LogRecord[]) => insertRows(statements, batch)),
  };
}

/** A batch's rows, their side rows, list counts and rollup, inside the caller's transaction. */
function insertRows(s: ReturnType<typeof prepareStatements>, batch: LogRecord[]): void {
  const deltas = new Map<string, RollupDelta>();
  const counts = countDeltas();
  for (const raw of batch) {
    const r = normalizeRecord(raw);
    const inNano = toNano(r.input_cost);
    const outNano = toNano(r.output_cost);
    const info = s.insert.run(rowValues(r, inNano, outNano));
    // Ignored duplicate: the ledger already holds this request; do not count it twice.
    if (info.changes === 0) continue;
    s.insertBodies.run(bodyValues(r));
    addDelta(deltas, r, r.billed ? inNano : 0n, r.billed ? outNano : 0n);
    counts.add(r);
  }
  for (const d of counts.deltas()) s.addCounts[d.unit].run(...d.key, d.n);
  for (const d of deltas.values()) {
    s.upsertRollup.run(
      d.bucket_ms, d.account_id, d.api_key_id, d.model, d.request_count, d.prompt_tokens,
      d.completion_tokens, d.prompt_tokens + d.completion_tokens, d.latency_sum,
      d.input_cost_nano, d.output_cost_nano,
    );
  }
}

function prepareStatements(db: Database.Database) {
  const cols = [...INLINE_COLUMNS, 'input_cost_nano', 'output_cost_nano'];
  // rowValues and bodyValues spell the columns out: a column added to LOG_COLUMNS alone must not shift them.
  const empty = normalizeRecord({} as LogRecord);
  if (rowValues(empty, 0n, 0n).length !== cols.length || bodyValues(empty).length !== BODY_COLUMNS.length + 1) {
    throw new Error('sqlite.ts rowValues or bodyValues does not list every column of INLINE_COLUMNS or BODY_COLUMNS');
  }
  return {
    insert: db.prepare(
      // counted = 1: this batch adds its rows to the list counts itself (count-deltas.ts), not the trigger.
      `INSERT INTO call_logs (${cols.join(', ')}, attempts, counted) VALUES (${cols.map(() => '?').join(', ')}, '[]', 1) ON CONFLICT (id) DO NOTHING`,
    ),
    addCounts: Object.fromEntries(
      COUNT_UNITS.map(([unit]) => [
        unit,
        db.prepare(`INSERT INTO call_log_counts_${unit} (bucket_ms, ${COUNT_KEY_COLUMNS.join(', ')}, n)
          VALUES (?, ${COUNT_KEY_COLUMNS.map(() => '?').join(', ')}, ?)
          ON CONFLICT (bucket_ms, ${COUNT_KEY_COLUMNS.join(', ')}) DO UPDATE SET n = n + excluded.n`),
      ]),
    ) as Record<CountDelta['unit'], Database.Statement>,
    insertBodies: db.prepare(
      `INSERT INTO call_log_bodies (id, ${BODY_COLUMNS.join(', ')}) VALUES (?, ${BODY_COLUMNS.map(() => '?').join(', ')})
        ON CONFLICT (id) DO NOTHING`,
    ),
    upsertRollup: db.prepare(`INSERT INTO stat_rollup (bucket_ms, account_id, api_key_id, model, request_count,
        prompt_tokens, completion_tokens, total_tokens, latency_sum, input_cost_nano, output_cost_nano)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (bucket_ms, account_id, api_key_id, model) DO UPDATE SET
        request_count = request_count + excluded.request_count,
        prompt_tokens = prompt_tokens + excluded.prompt_tokens,
        completion_tokens = completion_tokens + excluded.completion_tokens,
        total_tokens = total_tokens + excluded.total_tokens,
        latency_sum = latency_sum + excluded.latency_sum,
        input_cost_nano = input_cost_nano + excluded.input_cost_nano,
        output_cost_nano = output_cost_nano + excluded.output_cost_nano`),
    get: db.prepare(detailSql('?')),
    deleteOlder: db.prepare(
      'DELETE FROM call_logs WHERE rowid IN (SELECT rowid FROM call_logs WHERE created_at < ? LIMIT ?)',
    ),
  };
}

/**
 * A normalized record as the insert's parameters, in `INLINE_COLUMNS` order then the two nano
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

function addDelta(deltas: Map<string, RollupDelta>, r: LogRecord, inNano: bigint, outNano: bigint): void {
  const bucket = bucketOf(r.created_at);
  // NUL cannot occur inside them (storableText replaces it), so the joined key is unambiguous.
  const key = `${bucket}\0${r.account_id}\0${r.api_key_id}\0${r.model}`;
  let d = deltas.get(key);
  if (!d) {
    d = {
      bucket_ms: bucket, account_id: r.account_id, api_key_id: r.api_key_id, model: r.model,
      request_count: 0, prompt_tokens: 0, completion_tokens: 0, latency_sum: 0,
      input_cost_nano: 0n, output_cost_nano: 0n,
    };
    deltas.set(key, d);
  }
  d.request_count += 1;
  d.prompt_tokens += r.request_tokens;
  d.completion_tokens += r.response_tokens;
  d.latency_sum += r.latency_ms;
  d.input_cost_nano += inNano;
  d.output_cost_nano += outNano;
}
