/**
 * The breakdown's pieces (statistics `GET /v1/statistics/breakdown`), shared by both stores: the
 * newest `limit` rows of the range in the list's order (created_at DESC, id DESC), folded per
 * group in the store (breakdown-postgres.ts, breakdown-sqlite.ts). Reading them as list pages
 * instead cost an OFFSET scan and a full COUNT(*) per page, 6–20 s at 1M rows (bench/README.md,
 * issue 37).
 */
import type { LogGroupBy } from './types.ts';

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

/** `columns` of the newest `limit` rows that `where` matches, in the list's order. */
export function newestRows(columns: string, where: string, limitPlaceholder: string): string {
  return `SELECT ${columns} FROM call_logs ${where} ORDER BY created_at DESC, id DESC LIMIT ${limitPlaceholder}`;
}

/** The columns both stores read from each row (`g` the group). */
export function foldColumns(by: LogGroupBy): string {
  return `${groupColumn(by)} AS g, status, request_tokens + response_tokens AS tokens, latency_ms, ttft_ms`;
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

/** Whether more than `offset` rows match: one row past it, in no order. */
export function rowBeyond(where: string, offsetPlaceholder: string): string {
  return `SELECT 1 AS x FROM call_logs ${where} LIMIT 1 OFFSET ${offsetPlaceholder}`;
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

/** A group's comma list of numbers (SQLite's group_concat, PostgreSQL's string_agg), sorted. */
export function sortedNumbers(list: unknown, each: (x: number) => number): Float64Array {
  if (list == null) return new Float64Array(0);
  const parts = String(list).split(',');
  const values = new Float64Array(parts.length);
  for (let i = 0; i < parts.length; i++) values[i] = each(Number(parts[i]));
  return values.sort();
}

/**
 * Result rows of two folds over disjoint calls as the rows of one fold over them all; `addCosts`
 * adds a group's cost columns, which each store sums its own way.
 */
export function mergeFoldRows(
  a: Record<string, unknown>[],
  b: Record<string, unknown>[],
  addCosts: (into: Record<string, unknown>, from: Record<string, unknown>) => void,
): Record<string, unknown>[] {
  const byGroup = new Map<unknown, Record<string, unknown>>();
  for (const r of a) byGroup.set(r.g, { ...r });
  const joined = (x: unknown, y: unknown) => (x == null ? y : y == null ? x : `${x},${y}`);
  for (const r of b) {
    const m = byGroup.get(r.g);
    if (!m) {
      byGroup.set(r.g, { ...r });
      continue;
    }
    m.request_count = Number(m.request_count) + Number(r.request_count);
    m.error_count = Number(m.error_count) + Number(r.error_count);
    m.total_tokens = Number(m.total_tokens) + Number(r.total_tokens);
    addCosts(m, r);
    m.latencies = joined(m.latencies, r.latencies);
    m.ttfts = joined(m.ttfts, r.ttfts);
  }
  return [...byGroup.values()];
}
