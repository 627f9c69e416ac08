/**
 * Migration 7's SQL (both stores): call_logs matches per UTC hour and per UTC day and per
 * combination of the columns the log list filters on, so a list counts and pages through buckets
 * (count-list.ts) instead of rows. Triggers keep them, so rows written or deleted by any release
 * (the previous one included, which knows nothing of them) are counted. A NULL provider or error
 * code is stored as '' (a primary key cannot hold NULL); the list answers a filter for '' without
 * the counts. Applied once and recorded: never change this text, add a migration instead.
 */
import { pgTriggerFunction } from './migrations-pg-function.ts';

/**
 * Only the log list read call_logs by model or by status, and it now reads a few hours by
 * created_at: two fewer B-trees per row pay for most of the triggers (bench/README.md). Breakdown
 * and retention keep theirs (key, account, created_at).
 */
const DROP_LIST_INDEXES = 'DROP INDEX IF EXISTS call_logs_model_created; DROP INDEX IF EXISTS call_logs_status_created;';

const KEY_COLUMNS = ['api_key_id', 'account_id', 'model', 'status', 'provider_id', 'endpoint', 'error_code'];
const PRIMARY_KEY = `PRIMARY KEY (bucket_ms, ${KEY_COLUMNS.join(', ')})`;
const UNITS = [['hour', 3_600_000], ['day', 86_400_000]] as const;

/** The bucket start of `ms` (floored, so a time before 1970 lands in its own bucket too). */
const bucket = (ms: string, size: number) => `${ms} - ((${ms} % ${size}) + ${size}) % ${size}`;

/** The key columns of a call_logs row, NULLs as ''. */
const keyValues = (row: string) =>
  KEY_COLUMNS.map((c) => (c === 'provider_id' || c === 'error_code' ? `COALESCE(${row}${c}, '')` : `${row}${c}`)).join(', ');

function table(unit: string, int: string, text: string, withoutRowid: string): string {
  return `CREATE TABLE call_log_counts_${unit} (
        bucket_ms ${int} NOT NULL,
        ${KEY_COLUMNS.map((c) => `${c} ${text} NOT NULL`).join(',\n        ')},
        n ${int} NOT NULL,
        ${PRIMARY_KEY}
      )${withoutRowid};`;
}

/** The same counts from what call_logs holds now. */
const backfill = (unit: string, size: number) =>
  `INSERT INTO call_log_counts_${unit}
        SELECT ${bucket('created_at', size)}, ${keyValues('')}, COUNT(*) FROM call_logs GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;`;

/** The SQLite trigger statements that count the NEW row, once per unit. */
const addCountsSqlite = () =>
  UNITS.map(([unit, size]) => `INSERT INTO call_log_counts_${unit} VALUES (${bucket('NEW.created_at', size)}, ${keyValues('NEW.')}, 1)
          ON CONFLICT (bucket_ms, ${KEY_COLUMNS.join(', ')}) DO UPDATE SET n = n + 1;`).join('\n        ');

/** Upserts the counts of every row in `source` (call_logs' columns), once per unit, bucket and combination. */
export const addCountsFromSqlite = (source: string): string[] =>
  UNITS.map(([unit, size]) => `INSERT INTO call_log_counts_${unit} (bucket_ms, ${KEY_COLUMNS.join(', ')}, n)
        SELECT ${bucket('created_at', size)}, ${keyValues('')}, COUNT(*) FROM ${source} GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
        ON CONFLICT (bucket_ms, ${KEY_COLUMNS.join(', ')}) DO UPDATE SET n = n + excluded.n`);

export function callLogCountsSqlite(): string {
  const keyMatch = (size: number) => `bucket_ms = ${bucket('OLD.created_at', size)} AND ${KEY_COLUMNS.map((c) => `${c} = ${c === 'provider_id' || c === 'error_code' ? `COALESCE(OLD.${c}, '')` : `OLD.${c}`}`).join(' AND ')}`;
  const add = addCountsSqlite();
  const remove = UNITS.map(([unit, size]) => `UPDATE call_log_counts_${unit} SET n = n - 1 WHERE ${keyMatch(size)};
        DELETE FROM call_log_counts_${unit} WHERE ${keyMatch(size)} AND n = 0;`).join('\n        ');
  // Row triggers: an insert ignored by ON CONFLICT (id) DO NOTHING fires none.
  return `
      ${DROP_LIST_INDEXES}
      ${UNITS.map(([unit]) => table(unit, 'INTEGER', 'TEXT', ' WITHOUT ROWID')).join('\n      ')}
      ${UNITS.map(([unit, size]) => backfill(unit, size)).join('\n      ')}
      CREATE TRIGGER call_log_counts_insert AFTER INSERT ON call_logs BEGIN
        ${add}
      END;
      CREATE TRIGGER call_log_counts_delete AFTER DELETE ON call_logs BEGIN
        ${remove}
      END;
      CREATE TRIGGER call_log_counts_update AFTER UPDATE OF created_at, ${KEY_COLUMNS.join(', ')} ON call_logs BEGIN
        ${remove}
        ${add}
      END;
    `;
}

export function callLogCountsPostgres(): string {
  /** Adds +1 per row of `added` and -1 per row of `removed` (transition tables), then drops emptied buckets. */
  const apply = (added: string | null, removed: string | null) => {
    const sources = [added && `SELECT created_at, ${KEY_COLUMNS.join(', ')}, 1 AS d FROM ${added}`, removed && `SELECT created_at, ${KEY_COLUMNS.join(', ')}, -1 AS d FROM ${removed}`].filter(Boolean);
    return UNITS.map(([unit, size]) => {
      const t = `call_log_counts_${unit}`;
      const upsert = `INSERT INTO ${t}
          SELECT ${bucket('created_at', size)}, ${keyValues('')}, SUM(d) FROM (${sources.join(' UNION ALL ')}) c
          GROUP BY 1, 2, 3, 4, 5, 6, 7, 8 ORDER BY 1, 2, 3, 4, 5, 6, 7, 8
        ON CONFLICT (bucket_ms, ${KEY_COLUMNS.join(', ')}) DO UPDATE SET n = ${t}.n + EXCLUDED.n;`;
      const prune = removed ? `\n        DELETE FROM ${t} WHERE n = 0 AND bucket_ms IN (SELECT DISTINCT ${bucket('created_at', size)} FROM ${removed});` : '';
      return upsert + prune;
    }).join('\n        ');
  };
  // Statement triggers: one grouped upsert per batch statement; the transition table holds only
  // the rows really inserted (none that ON CONFLICT (id) DO NOTHING ignored).
  return `
      ${DROP_LIST_INDEXES}
      ${UNITS.map(([unit]) => table(unit, 'BIGINT', 'TEXT', '')).join('\n      ')}
      ${UNITS.map(([unit, size]) => backfill(unit, size)).join('\n      ')}
      ${pgTriggerFunction('call_log_counts_inserted', apply('new_rows', null))}
      ${pgTriggerFunction('call_log_counts_deleted', apply(null, 'old_rows'))}
      ${pgTriggerFunction('call_log_counts_updated', apply('new_rows', 'old_rows'))}
      CREATE TRIGGER call_log_counts_insert AFTER INSERT ON call_logs
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION call_log_counts_inserted();
      CREATE TRIGGER call_log_counts_delete AFTER DELETE ON call_logs
        REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION call_log_counts_deleted();
      CREATE TRIGGER call_log_counts_update AFTER UPDATE ON call_logs
        REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION call_log_counts_updated();
    `;
}

/**
 * Migration 10's SQL (SQLite): the insert trigger counts only rows whose writer did not count them
 * itself. This release inserts with `counted = 1` and adds a batch's matches per bucket and
 * combination in one upsert each (sqlite.ts), where the row trigger upserted twice per row:
 * 26.3 → 25.2 µs of CPU per bench-like row (bench/README.md, issue 37). The previous release names
 * no `counted` column, so its rows (NULL) are still counted here.
 */
export function countedByWriterSqlite(): string {
  return `
      ALTER TABLE call_logs ADD COLUMN counted INTEGER;
      DROP TRIGGER call_log_counts_insert;
      CREATE TRIGGER call_log_counts_insert AFTER INSERT ON call_logs WHEN NEW.counted IS NULL BEGIN
        ${addCountsSqlite()}
      END;
    `;
}

/** The count tables' key columns after bucket_ms, in order (NULLs stored as ''), and their units with bucket sizes in ms. */
export { KEY_COLUMNS as COUNT_KEY_COLUMNS, UNITS as COUNT_UNITS };
