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

/**
 * The list's equality filters with their columns, the usually most selective first: a call log
 * holds few calls per error code, more per key, model, account, provider, endpoint, and most
 * per status (which every index holds, so it never picks one).
 */
const EQUALITY_FILTERS = [
  ['error_code', 'error_code'], ['api_key_id', 'api_key_id'], ['model', 'model'], ['account_id', 'account_id'],
  ['provider', 'provider_id'], ['endpoint', 'endpoint'],
] as const;

/**
 * `WHERE …` for the log list (both time bounds inclusive); empty string when unfiltered.
 * `oneIndex` (SQLite, which keeps no statistics here): only the first filter present in
 * EQUALITY_FILTERS order may pick an index (each column has one, in list order; migration 6), the
 * others are marked `+column` (SQLite's way to keep a term off indexes), so the planner walks the
 * narrowest index rather than guessing.
 */
export function logWhere(filter: LogFilter, ph: Placeholder, options: { oneIndex?: boolean } = {}): WhereClause {
  const parts: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, value: unknown) => {
    params.push(typeof value === 'string' ? storableText(value) : value);
    parts.push(sql.replace('?', ph(params.length)));
  };
  if (filter.start_time !== undefined) add('created_at >= ?', Math.floor(filter.start_time));
  if (filter.end_time !== undefined) add('created_at <= ?', Math.floor(filter.end_time));
  // Every index holds the status (migration 6): it filters, it never picks the index.
  if (filter.status !== undefined) add(`${options.oneIndex ? '+' : ''}status = ?`, filter.status);
  let driving = true;
  for (const [name, column] of EQUALITY_FILTERS) {
    const value = filter[name];
    if (value === undefined) continue;
    add(`${options.oneIndex && !driving ? '+' : ''}${column} = ?`, value);
    driving = false;
  }
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
  return { sql: `WHERE ${parts.join(' AND ')}`, params };
}

/** Validated LIMIT/OFFSET for a 1-based page. */
export function pageWindow(page: number, pageSize: number): { limit: number; offset: number } {
  const limit = Math.max(1, Math.floor(pageSize) || 1);
  const p = Math.max(1, Math.floor(page) || 1);
  return { limit, offset: (p - 1) * limit };
}
