/**
 * The breakdown's fold on SQLite (see breakdown-sql.ts). SQLite has no percentile aggregate: each
 * group returns its latencies and TTFTs as one comma list (group_concat skips the NULL TTFTs of
 * calls that did not stream), sorted here in the store's thread.
 *
 * The cost is summed exactly at 12 places, as the list's decimal text gives it: the nano column
 * (rounded at 9 places, which alone would move the sum) plus what it rounded off, read from the
 * text only for the costs that have more than 9 places.
 */
import { fromScaled } from '../../kernel/decimal.ts';
import { foldColumns, keyName, keyNameColumn, newestRows, percentile, sortedNumbers } from './breakdown-sql.ts';
import type { LogGroupBy, LogGroupStats } from './types.ts';

/**
 * The stored cost × 10^12 minus its nano copy × 1000 (the nano copy is the text rounded half away
 * from zero at 9 places): 0 for a cost with at most 9 places, else its last three digits less
 * the rounding. The text is canonical (fromScaled at 12 places, see rows.ts), maybe negative.
 */
function belowNano(column: string): string {
  const dot = `instr(${column}, '.')`;
  const digits = `CAST(substr(substr(${column}, ${dot} + 10) || '000', 1, 3) AS INTEGER)`;
  const sign = `(CASE WHEN substr(${column}, 1, 1) = '-' THEN -1 ELSE 1 END)`;
  // Shorter than 12 characters ("0." and ten places), the text has at most 9 places: one call
  // then settles most rows (~6 ms of CPU over 50,000 rows at 1M, bench/README.md).
  return `(CASE WHEN length(${column}) < 12 OR ${dot} = 0 OR length(${column}) - ${dot} <= 9 THEN 0
    ELSE ${sign} * (${digits} - (${digits} >= 500) * 1000) END)`;
}

export function sqliteBreakdownSql(by: LogGroupBy, where: string): string {
  return `SELECT grouped.*, ${keyNameColumn(by, where)} FROM (
      SELECT g, COUNT(*) AS request_count, SUM(status = 'error') AS error_count,
        SUM(tokens) AS total_tokens, SUM(nano) AS cost_nano, SUM(below_nano) AS cost_below_nano,
        group_concat(latency_ms) AS latencies, group_concat(ttft_ms) AS ttfts
      FROM (${newestRows(`${foldColumns(by)},
          CASE WHEN billed THEN input_cost_nano + output_cost_nano ELSE 0 END AS nano,
          CASE WHEN billed THEN ${belowNano('input_cost')} + ${belowNano('output_cost')} ELSE 0 END AS below_nano`, where, '?')})
      GROUP BY g
    ) grouped`;
}

/** sqliteBreakdownSql's parameters: `where`'s twice for `key` (the name's probe comes first), then the limit. */
export function sqliteBreakdownParams(by: LogGroupBy, whereParams: unknown[], limit: number): unknown[] {
  return by === 'key' ? [...whereParams, ...whereParams, limit] : [...whereParams, limit];
}

/** One result row (read with safeIntegers) as a group. */
export function foldSqlite(by: LogGroupBy, r: Record<string, unknown>): LogGroupStats {
  const latency = sortedNumbers(r.latencies, Math.round);
  const ttft = sortedNumbers(r.ttfts, (x) => x);
  const id = String(r.g);
  return {
    id,
    name: keyName(by, id, r.name),
    request_count: Number(r.request_count),
    error_count: Number(r.error_count),
    total_tokens: Number(r.total_tokens),
    billed_cost: fromScaled(BigInt(r.cost_nano as bigint) * 1000n + BigInt(r.cost_below_nano as bigint)),
    ttft_p50: percentile(ttft, 0.5),
    ttft_p95: percentile(ttft, 0.95),
    latency_p50: percentile(latency, 0.5),
    latency_p95: percentile(latency, 0.95),
  };
}
