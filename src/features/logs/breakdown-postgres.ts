/**
 * The breakdown's fold on PostgreSQL (see breakdown-sql.ts): exact NUMERIC sums and
 * percentile_disc per group, in one statement.
 */
import { foldColumns, keyName, newestRows } from './breakdown-sql.ts';
import type { LogGroupBy, LogGroupStats } from './types.ts';

export function postgresBreakdownSql(by: LogGroupBy, where: string, limitPlaceholder: string): string {
  const pct = (p: number, column: string) => `percentile_disc(${p}) WITHIN GROUP (ORDER BY ${column})`;
  // For `key`, the name on the group's newest call (the list's order).
  const name = by === 'key' ? '(array_agg(api_key_name ORDER BY created_at DESC, id DESC))[1]' : 'NULL';
  return `SELECT g, ${name} AS name, COUNT(*) AS request_count, COUNT(*) FILTER (WHERE status = 'error') AS error_count,
      SUM(tokens) AS total_tokens, SUM(cost)::text AS billed_cost,
      ${pct(0.5, 'ttft_ms')} AS ttft_p50, ${pct(0.95, 'ttft_ms')} AS ttft_p95,
      ${pct(0.5, 'latency_ms')} AS latency_p50, ${pct(0.95, 'latency_ms')} AS latency_p95
    FROM (${newestRows(`${foldColumns(by)}, CASE WHEN billed THEN input_cost + output_cost ELSE 0 END AS cost`, where, limitPlaceholder)}) newest
    GROUP BY g`;
}

/** One result row as a group. */
export function foldPostgres(by: LogGroupBy, r: Record<string, unknown>): LogGroupStats {
  return {
    id: String(r.g),
    name: keyName(by, String(r.g), r.name),
    request_count: Number(r.request_count),
    error_count: Number(r.error_count),
    total_tokens: Number(r.total_tokens),
    billed_cost: String(r.billed_cost),
    ttft_p50: r.ttft_p50 == null ? null : Number(r.ttft_p50),
    ttft_p95: r.ttft_p95 == null ? null : Number(r.ttft_p95),
    latency_p50: Math.round(Number(r.latency_p50)),
    latency_p95: Math.round(Number(r.latency_p95)),
  };
}
