/**
 * The breakdown's fold on PostgreSQL (see breakdown-sql.ts): exact NUMERIC sums, and each group's
 * latencies and TTFTs as one list that the store sorts for the percentiles. Without an
 * ordered-set aggregate (percentile_disc, array_agg ... ORDER BY) the planner can hash the 50,000
 * rows into their groups instead of sorting them (a sort that spilled to disk at the default
 * work_mem): ~150 to ~90 ms over all accounts at 1M rows here (bench/README.md).
 */
import { callsAt, callsFrom, groupColumn, keyName, keyNameColumn, newestRows, percentile, timesFrom } from './breakdown-sql.ts';
import { addDecimal } from '../../kernel/decimal.ts';
import type pg from 'pg';
import { logWhere } from './filter-sql.ts';
import type { LogBreakdown, LogFilter, LogGroupBy, LogGroupStats } from './types.ts';

/** The groups of the calls `where` selects: all of them, or the newest `limit` (a placeholder). */
export function postgresBreakdownSql(by: LogGroupBy, where: string, limitPlaceholder?: string): string {
  const columns = `${groupColumn(by)} AS g, status, request_tokens + response_tokens AS tokens, latency_ms, ttft_ms,
    CASE WHEN billed THEN input_cost + output_cost ELSE 0 END AS cost`;
  const rows = limitPlaceholder ? newestRows(columns, where, limitPlaceholder) : `SELECT ${columns} FROM call_logs ${where}`;
  return `SELECT grouped.*, ${keyNameColumn(by, where)} FROM (
      SELECT g, COUNT(*) AS request_count, COUNT(*) FILTER (WHERE status = 'error') AS error_count,
        SUM(tokens) AS total_tokens, SUM(cost)::text AS billed_cost,
        string_agg(latency_ms::text, ',') AS latencies, string_agg(ttft_ms::text, ',') AS ttfts
      FROM (${rows}) newest
      GROUP BY g
    ) grouped`;
}

/**
 * The newest `limit` calls of `filter` folded (see breakdown-sql.ts's `timesFrom`), every
 * statement on `first`, or, given `second` (a second connection of the same snapshot), in
 * two halves side by side: one backend folds ~50,000 calls in ~60–90 ms here, two halves in about
 * half that (bench/README.md). Each half is a time range; the key's name comes from the range a
 * group is read in, which holds the key's newest call whenever the newer ranges hold none.
 */
export async function foldNewest(by: LogGroupBy, filter: LogFilter, limit: number, first: pg.PoolClient, second?: () => Promise<pg.PoolClient>): Promise<LogBreakdown> {
  const where = postgresWhere(filter);
  const fold = async (client: pg.PoolClient, range: LogFilter, newest?: number) => {
    const cut = postgresWhere(range);
    if (newest === undefined) return (await client.query(postgresBreakdownSql(by, cut.sql), cut.params)).rows;
    return (await client.query(postgresBreakdownSql(by, cut.sql, `$${cut.params.length + 1}`), [...cut.params, newest])).rows;
  };
  const timeAt = async (client: pg.PoolClient, offset: number, count: number) =>
    (await client.query(timesFrom(where.sql, `$${where.params.length + 1}`, count), [...where.params, offset])).rows.map((row) => Number(row.created_at));
  const answer = (rows: Record<string, unknown>[], truncated: boolean): LogBreakdown => ({ groups: rows.map((r) => foldPostgres(by, r)), truncated });

  if (limit <= 0) {
    const { rows } = await first.query(`SELECT 1 FROM call_logs ${where.sql} LIMIT 1`, where.params);
    return { groups: [], truncated: rows.length > 0 };
  }
  const other = second && limit >= 2 ? await second() : undefined;
  const [edge, middle] = await Promise.all([timeAt(first, limit - 1, 2), other ? timeAt(other, Math.ceil(limit / 2) - 1, 1) : []]);
  // `at`: the limit-th call's time (none when fewer calls match); every call after it is read whole.
  const at = edge[0];
  const whole = at === undefined ? filter : callsFrom(filter, at + 1);
  // The calls from `split` on fold on `first`, the older ones on `other`.
  const split = middle[0] !== undefined && middle[0] > (whole.start_time ?? -Infinity) ? middle[0] : undefined;
  const [newer, older] = await Promise.all([
    fold(first, split === undefined ? whole : callsFrom(filter, split)),
    split === undefined ? [] : fold(other!, { ...whole, end_time: split - 1 }),
  ]);
  let rows = mergeFoldRows(newer, older);
  if (at !== undefined) {
    const read = rows.reduce((n, r) => n + Number(r.request_count), 0);
    rows = mergeFoldRows(rows, await fold(first, callsAt(filter, at), limit - read));
  }
  return answer(rows, edge.length > 1);
}

/** PostgreSQL's filter: with a key, the account a plain column (filter-sql.ts). */
const postgresWhere = (filter: LogFilter) => logWhere(filter, (i) => `$${i}`, { statistics: true });

/** A group's comma list of numbers (string_agg), sorted. */
function sortedNumbers(list: unknown, each: (x: number) => number): Float64Array {
  if (list == null) return new Float64Array(0);
  const parts = String(list).split(',');
  const values = new Float64Array(parts.length);
  for (let i = 0; i < parts.length; i++) values[i] = each(Number(parts[i]));
  return values.sort();
}

/** Result rows of two folds over disjoint calls as the rows of one fold over them all (the first's names kept). */
function mergeFoldRows(a: Record<string, unknown>[], b: Record<string, unknown>[]): Record<string, unknown>[] {
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
