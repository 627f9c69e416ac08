/**
 * The SQL of a counted log-list page (count-list.ts), shared by both stores like filter-sql.ts:
 * the filter's columns have the same names in call_logs and in the count tables, whose buckets
 * (`bucket_ms`) stand where call_logs has `created_at`.
 */
import type { TimeRange } from './count-plan.ts';
import { logWhere, type WhereClause } from './filter-sql.ts';
import { LIST_COLUMNS } from './rows.ts';
import type { LogFilter } from './types.ts';

type Placeholder = (index: number) => string;

/** The filter's WHERE over `column` within any of the inclusive ranges. */
function whereWithin(filter: LogFilter, column: string, ranges: TimeRange[], ph: Placeholder): WhereClause {
  const { start_time: _start, end_time: _end, ...columns } = filter;
  const where = logWhere(columns, ph);
  const params = [...where.params];
  const within = ranges.map((r) => {
    params.push(r.from, r.to);
    return `${column} BETWEEN ${ph(params.length - 1)} AND ${ph(params.length)}`;
  });
  const condition = `(${within.join(' OR ')})`;
  return { sql: where.sql ? `${where.sql} AND ${condition}` : `WHERE ${condition}`, params };
}

/** Matches per bucket of the unit's count table, columns `bucket` and `n`. */
export function bucketCountsSql(unit: 'hour' | 'day', filter: LogFilter, ranges: TimeRange[], ph: Placeholder): WhereClause {
  const where = whereWithin(filter, 'bucket_ms', ranges, ph);
  return { sql: `SELECT bucket_ms AS bucket, SUM(n) AS n FROM call_log_counts_${unit} ${where.sql} GROUP BY bucket_ms`, params: where.params };
}

/** Matching call_logs rows in one range, column `n`. */
export function rawCountSql(filter: LogFilter, range: TimeRange, ph: Placeholder): WhereClause {
  const where = whereWithin(filter, 'created_at', [range], ph);
  return { sql: `SELECT COUNT(*) AS n FROM call_logs ${where.sql}`, params: where.params };
}

/** The list columns of matching rows within the ranges, in list order, LIMIT and OFFSET bound last. */
export function pageRowsSql(filter: LogFilter, ranges: TimeRange[], limit: number, offset: number, ph: Placeholder): WhereClause {
  const where = whereWithin(filter, 'created_at', ranges, ph);
  const n = where.params.length;
  return {
    sql: `SELECT ${LIST_COLUMNS} FROM call_logs ${where.sql} ORDER BY created_at DESC, id DESC LIMIT ${ph(n + 1)} OFFSET ${ph(n + 2)}`,
    params: [...where.params, limit, offset],
  };
}

/** COUNT(*) (column `n`) and the page in list order over call_logs: for filters the counts cannot answer. */
export function plainPageSql(filter: LogFilter, limit: number, offset: number, ph: Placeholder): { count: WhereClause; rows: WhereClause } {
  const where = logWhere(filter, ph);
  const n = where.params.length;
  return {
    count: { sql: `SELECT COUNT(*) AS n FROM call_logs ${where.sql}`, params: where.params },
    rows: {
      sql: `SELECT ${LIST_COLUMNS} FROM call_logs ${where.sql} ORDER BY created_at DESC, id DESC LIMIT ${ph(n + 1)} OFFSET ${ph(n + 2)}`,
      params: [...where.params, limit, offset],
    },
  };
}
