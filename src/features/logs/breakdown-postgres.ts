/**
 * The breakdown's fold on PostgreSQL (see breakdown-sql.ts), in one statement: exact NUMERIC
 * sums, and each group's latencies and TTFTs as one list that the store sorts for the
 * percentiles. Without an ordered-set aggregate (percentile_disc, array_agg ... ORDER BY) the
 * planner can hash the 50,000 rows into their groups instead of sorting them (a sort that spilled
 * to disk at the default work_mem): ~150 to ~90 ms over all accounts at 1M rows here (bench/README.md).
 */
import { foldColumns, keyName, keyNameColumn, newestRows, percentile, sortedNumbers } from './breakdown-sql.ts';
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

/** Adds group `b`'s cost into `a`'s (NUMERIC text). */
export function addPostgresCost(a: Record<string, unknown>, b: Record<string, unknown>): void {
  a.billed_cost = addDecimal(String(a.billed_cost), String(b.billed_cost));
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
