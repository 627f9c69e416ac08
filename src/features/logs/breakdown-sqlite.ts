/**
 * The breakdown's fold on SQLite (see breakdown-sql.ts). SQLite has no percentile aggregate: each
 * group returns its latencies and TTFTs as one comma list (group_concat skips the NULL TTFTs of
 * calls that did not stream), sorted here in the store's thread.
 *
 * The cost is summed exactly from the stored 12-place decimal text, not from the nano column
 * (rounded at 9 places, which would move the sum): whole units and the 12-place fraction are
 * summed apart, as integers, and joined as BigInt.
 */
import { fromScaled } from '../../kernel/decimal.ts';
import { keyName, newestRows, percentile } from './breakdown-sql.ts';
import type { LogGroupBy, LogGroupStats } from './types.ts';

const FRACTION = 10n ** 12n;

/** [whole units, fraction × 10^12] of a stored cost (canonical decimal text, maybe negative). */
function scaledParts(column: string): [string, string] {
  const abs = `ltrim(${column}, '-')`;
  const dot = `instr(${abs}, '.')`;
  const sign = `(CASE WHEN substr(${column}, 1, 1) = '-' THEN -1 ELSE 1 END)`;
  return [
    `CAST(CASE WHEN ${dot} = 0 THEN ${abs} ELSE substr(${abs}, 1, ${dot} - 1) END AS INTEGER) * ${sign}`,
    `(CASE WHEN ${dot} = 0 THEN 0 ELSE CAST(substr(substr(${abs}, ${dot} + 1) || '000000000000', 1, 12) AS INTEGER) END) * ${sign}`,
  ];
}

export function sqliteBreakdownSql(by: LogGroupBy, where: string): string {
  const [inWhole, inFrac] = scaledParts('input_cost');
  const [outWhole, outFrac] = scaledParts('output_cost');
  // For `key`, the name of the group's newest call: with one max() the bare column comes from
  // that row; the id breaks ties in created_at as the list's order does.
  const newest = by === 'key' ? `, api_key_name AS name, MAX(printf('%020d', created_at) || id) AS newest` : '';
  return `SELECT g${newest}, COUNT(*) AS request_count, SUM(status = 'error') AS error_count,
      SUM(request_tokens + response_tokens) AS total_tokens,
      SUM(CASE WHEN billed THEN ${inWhole} + ${outWhole} ELSE 0 END) AS cost_whole,
      SUM(CASE WHEN billed THEN ${inFrac} + ${outFrac} ELSE 0 END) AS cost_fraction,
      group_concat(latency_ms) AS latencies, group_concat(ttft_ms) AS ttfts
    FROM (${newestRows(by, where, '?')}) GROUP BY g`;
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
    billed_cost: fromScaled(BigInt(r.cost_whole as bigint) * FRACTION + BigInt(r.cost_fraction as bigint)),
    ttft_p50: percentile(ttft, 0.5),
    ttft_p95: percentile(ttft, 0.95),
    latency_p50: percentile(latency, 0.5),
    latency_p95: percentile(latency, 0.95),
  };
}

function sortedNumbers(list: unknown, each: (x: number) => number): Float64Array {
  if (list == null) return new Float64Array(0);
  const parts = String(list).split(',');
  const values = new Float64Array(parts.length);
  for (let i = 0; i < parts.length; i++) values[i] = each(Number(parts[i]));
  return values.sort();
}
