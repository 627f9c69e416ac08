/**
 * The breakdown's fold on PostgreSQL (see breakdown-sql.ts), in one statement: exact NUMERIC
 * sums, and each group's latencies and TTFTs as one list that the store sorts for the
 * percentiles. Without an ordered-set aggregate (percentile_disc, array_agg ... ORDER BY) the
 * planner can hash the 50,000 rows into their groups instead of sorting them (a sort that spilled
 * to disk at the default work_mem): ~150 to ~90 ms over all accounts at 1M rows here (bench/README.md).
 */
import { groupColumn, keyName, keyNameColumn, newestRows, percentile } from './breakdown-sql.ts';
import { addDecimal } from '../../kernel/decimal.ts';
import type { LogGroupBy, LogGroupStats } from './types.ts';

export function postgresBreakdownSql(by: LogGroupBy, where: string, limitPlaceholder: string): string {
  return `SELECT grouped.*, ${keyNameColumn(by, where)} FROM (
      SELECT g, COUNT(*) AS request_count, COUNT(*) FILTER (WHERE status = 'error') AS error_count,
        SUM(tokens) AS total_tokens, SUM(cost)::text AS billed_cost,
        string_agg(latency_ms::text, ',') AS latencies, string_agg(ttft_ms::text, ',') AS ttfts
      FROM (${newestRows(`${foldColumns(by)}, CASE WHEN billed THEN input_cost + output_cost ELSE 0 END AS cost`, where, limitPlaceholder)}) newest
      GROUP BY g
    ) grouped`;
}

/** The time and id of the call at `offset` in the list's order (created_at DESC, id DESC). */
export function middleCallSql(where: string, offsetPlaceholder: string): string {
  return `SELECT created_at, id FROM call_logs ${where} ORDER BY created_at DESC, id DESC LIMIT 1 OFFSET ${offsetPlaceholder}`;
}

/** The columns the fold reads from each row (`g` the group). */
function foldColumns(by: LogGroupBy): string {
  return `${groupColumn(by)} AS g, status, request_tokens + response_tokens AS tokens, latency_ms, ttft_ms`;
}

/** Whether more than `offset` rows match: one row past it, in no order. */
export function rowBeyond(where: string, offsetPlaceholder: string): string {
  return `SELECT 1 AS x FROM call_logs ${where} LIMIT 1 OFFSET ${offsetPlaceholder}`;
}

/** A group's comma list of numbers (string_agg), sorted. */
function sortedNumbers(list: unknown, each: (x: number) => number): Float64Array {
  if (list == null) return new Float64Array(0);
  const parts = String(list).split(',');
  const values = new Float64Array(parts.length);
  for (let i = 0; i < parts.length; i++) values[i] = each(Number(parts[i]));
  return values.sort();
}

/** Result rows of two folds over disjoint calls as the rows of one fold over them all. */
export function mergeFoldRows(a: Record<string, unknown>[], b: Record<string, unknown>[]): Record<string, unknown>[] {
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
    m.billed_cost = addDecimal(String(m.billed_cost), String(r.billed_cost));
    m.latencies = joined(m.latencies, r.latencies);
    m.ttfts = joined(m.ttfts, r.ttfts);
  }
  return [...byGroup.values()];
}

/** One result row as a group. */
export function foldPostgres(by: LogGroupBy, r: Record<string, unknown>): LogGroupStats {
  const latency = sortedNumbers(r.latencies, Math.round);
  const ttft = sortedNumbers(r.ttfts, (x) => x);
  return {
    id: String(r.g),
    name: keyName(by, String(r.g), r.name),
    request_count: Number(r.request_count),
    error_count: Number(r.error_count),
    total_tokens: Number(r.total_tokens),
    billed_cost: String(r.billed_cost),
    ttft_p50: percentile(ttft, 0.5),
    ttft_p95: percentile(ttft, 0.95),
    latency_p50: percentile(latency, 0.5),
    latency_p95: percentile(latency, 0.95),
  };
}
