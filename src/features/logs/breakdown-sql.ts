/**
 * The breakdown's pieces (statistics `GET /v1/statistics/breakdown`), shared by both stores: the
 * newest `limit` rows of the range in the list's order (created_at DESC, id DESC), folded per
 * group in the store (breakdown-postgres.ts, breakdown-sqlite.ts). Reading them as list pages
 * instead cost an OFFSET scan and a full COUNT(*) per page, 6–20 s at 1M rows (bench/README.md,
 * issue 37).
 */
import type { LogFilter, LogGroupBy } from './types.ts';

/** The group's column; '' for calls without a provider or group, as the list shows them. */
export function groupColumn(by: LogGroupBy): string {
  switch (by) {
    case 'model':
      return 'model';
    case 'provider':
      return "COALESCE(provider_id, '')";
    case 'key':
      return 'api_key_id';
    case 'account':
      return 'account_id';
    case 'group':
      return "COALESCE(group_id, '')";
  }
}

/**
 * The times of the calls from rank `offset + 1` on, newest first: an index walk that reads no
 * row. With `offset` = limit - 1 and two rows, the first is the time of the limit-th call and the
 * second says whether more calls match.
 *
 * The newest `limit` calls are then every call newer than that time and the newest of the calls
 * at that very time: the first a plain range, which both stores fold without the list's order
 * (id is in no time index: ordering by it cost a lookup of every row and a sort of each
 * millisecond's calls, bench/README.md, issue 37).
 */
export function timesFrom(where: string, offsetPlaceholder: string, count: number): string {
  return `SELECT created_at FROM call_logs ${where} ORDER BY created_at DESC LIMIT ${count} OFFSET ${offsetPlaceholder}`;
}

/**
 * The calls of `filter` from `from` on. The filter's own lower bound moves, rather than a second
 * one joining it: given both, SQLite walked the index from the one it picked, the month's start.
 */
export const callsFrom = (filter: LogFilter, from: number): LogFilter => ({ ...filter, start_time: from });

/** The calls of `filter` at the millisecond `at`. */
export const callsAt = (filter: LogFilter, at: number): LogFilter => ({ ...filter, start_time: at, end_time: at });

/** `columns` of the newest `limit` rows that `where` matches, in the list's order. */
export function newestRows(columns: string, where: string, limitPlaceholder: string): string {
  return `SELECT ${columns} FROM call_logs ${where} ORDER BY created_at DESC, id DESC LIMIT ${limitPlaceholder}`;
}

/**
 * `name` for `key`, over the groups as `grouped`: the name on the key's newest call of the range,
 * one probe of the key's index (which holds the name) per group. That call is among the newest
 * `limit` whenever the key is. Its placeholders come first in the statement (SQLite's are `?`).
 */
export function keyNameColumn(by: LogGroupBy, where: string): string {
  if (by !== 'key') return 'NULL AS name';
  return `(SELECT api_key_name FROM call_logs ${where ? `${where} AND` : 'WHERE'} api_key_id = grouped.g
    ORDER BY created_at DESC, id DESC LIMIT 1) AS name`;
}

/** The value at rank ⌈p·n⌉ of the sorted values (nearest rank, as PostgreSQL's percentile_disc). */
export function percentile(sorted: ArrayLike<number>, p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil(p * sorted.length))) - 1]!;
}

/** The key's name as the list shows it: the id when the stored name is empty. */
export function keyName(by: LogGroupBy, id: string, name: unknown): string {
  return by === 'key' ? String(name ?? '') || id : id;
}
