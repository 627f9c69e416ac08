/**
 * WHERE clauses for the log list and the rollup queries, shared by both stores. Placeholders
 * differ (`?` in SQLite, `$n` in PostgreSQL), so the caller passes a placeholder maker.
 *
 * Every text a filter compares goes through `storableText`, as the rows did when stored: a NUL
 * (`?model=%00`) would make PostgreSQL fail the query (a 500), and a value the rows hold with a
 * replacement must find them.
 */
import { storableText } from './storable.ts';
import type { LogFilter, RollupFilter } from './types.ts';

export interface WhereClause {
  sql: string;
  params: unknown[];
}

type Placeholder = (index: number) => string;

export interface LogWhereOptions {
  /** The planner keeps column statistics (PostgreSQL's does), so it can weigh the terms itself. */
  statistics?: boolean;
}

/** `WHERE …` for the log list (both time bounds inclusive); empty string when unfiltered. */
export function logWhere(filter: LogFilter, ph: Placeholder, options: LogWhereOptions = {}): WhereClause {
  const parts: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, value: unknown) => {
    params.push(typeof value === 'string' ? storableText(value) : value);
    parts.push(sql.replace('?', ph(params.length)));
  };
  if (filter.start_time !== undefined) add('created_at >= ?', Math.floor(filter.start_time));
  if (filter.end_time !== undefined) add('created_at <= ?', Math.floor(filter.end_time));
  if (filter.api_key_id !== undefined) add('api_key_id = ?', filter.api_key_id);
  if (filter.model !== undefined) add('model = ?', filter.model);
  if (filter.status !== undefined) add('status = ?', filter.status);
  // A key belongs to one account, so with a key the account term only confirms it: written as an
  // expression, no index serves it, and SQLite (no statistics) cannot pick the account's index
  // and filter 200k rows for the key's 50k (the breakdown of one key: ~600 ms, bench/README.md).
  // A planner with statistics estimates the expression at 0.5 % of the key's rows, too few to
  // hash the breakdown's groups: it sorts them instead (~110 against ~75 ms, bench/README.md).
  const accountTerm = filter.api_key_id === undefined || options.statistics ? 'account_id = ?' : "(account_id || '') = ?";
  if (filter.account_id !== undefined) add(accountTerm, filter.account_id);
  if (filter.provider !== undefined) add('provider_id = ?', filter.provider);
  if (filter.error_code !== undefined) add('error_code = ?', filter.error_code);
  if (filter.endpoint !== undefined) add('endpoint = ?', filter.endpoint);
  return { sql: parts.length ? `WHERE ${parts.join(' AND ')}` : '', params };
}

/** `WHERE …` for rollup rows with buckets starting in [fromMs, toMs). */
export function rollupWhere(fromMs: number, toMs: number, filter: RollupFilter, ph: Placeholder): WhereClause {
  const params: unknown[] = [Math.floor(fromMs), Math.ceil(toMs)];
  const parts = [`bucket_ms >= ${ph(1)}`, `bucket_ms < ${ph(2)}`];
  if (filter.account_id !== undefined) {
    params.push(storableText(filter.account_id));
    parts.push(`account_id = ${ph(params.length)}`);
  }
  if (filter.api_key_id !== undefined) {
    params.push(storableText(filter.api_key_id));
    parts.push(`api_key_id = ${ph(params.length)}`);
  }
  if (filter.buckets !== undefined) {
    // An IN list on the key's first column: one index seek per bucket, no scan of the range.
    const marks = filter.buckets.map((b) => {
      params.push(Math.floor(b));
      return ph(params.length);
    });
    parts.push(marks.length > 0 ? `bucket_ms IN (${marks.join(', ')})` : '1 = 0');
  }
  return { sql: `WHERE ${parts.join(' AND ')}`, params };
}

/** Validated LIMIT/OFFSET for a 1-based page. */
export function pageWindow(page: number, pageSize: number): { limit: number; offset: number } {
  const limit = Math.max(1, Math.floor(pageSize) || 1);
  const p = Math.max(1, Math.floor(page) || 1);
  return { limit, offset: (p - 1) * limit };
}
