/**
 * The breakdown's fold on SQLite (see breakdown-sql.ts). SQLite has neither a percentile aggregate
 * nor hashed grouping (its GROUP BY sorts the rows first): one aggregate function of ours folds
 * every row into its group in the store's thread, latencies and TTFTs kept for the percentiles.
 *
 * The cost is summed exactly at 12 places, as the list's decimal text gives it: the nano column
 * (rounded at 9 places, which alone would move the sum) plus what it rounded off, read from the
 * text only for the costs that have more than 9 places.
 */
import { fromScaled } from '../../kernel/decimal.ts';
import type Database from 'better-sqlite3';
import { callsAt, callsFrom, groupColumn, keyName, keyNameColumn, newestRows, percentile, timesFrom } from './breakdown-sql.ts';
import { logWhere, type WhereClause } from './filter-sql.ts';
import type { LogBreakdown, LogFilter, LogGroupBy, LogGroupStats } from './types.ts';

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

/** A group's sums as the fold adds each call. */
interface GroupFold {
  requests: number;
  errors: number;
  tokens: number;
  /** The cost in nano units, kept within 2^52 (what passes is added to `bigNano`). */
  nano: number;
  bigNano: bigint;
  belowNano: number;
  latencies: number[];
  ttfts: number[];
}

const FOLD_FUNCTION = 'gateway_breakdown_fold';
/** Below this a call's nano cost passes as a number, exactly; from it on as text. */
const SMALL_NANO = 2 ** 52;

/** The fold's arguments for each call (the group's value first). */
function foldArguments(by: LogGroupBy): string {
  const nano = 'input_cost_nano + output_cost_nano';
  return `${groupColumn(by)}, status = 'error', request_tokens + response_tokens, latency_ms, ttft_ms,
    CASE WHEN NOT billed THEN 0 WHEN abs(${nano}) < ${SMALL_NANO} THEN ${nano} ELSE CAST(${nano} AS TEXT) END,
    CASE WHEN billed THEN ${belowNano('input_cost')} + ${belowNano('output_cost')} ELSE 0 END`;
}

/** The statement that folds the calls `where` selects (the plain range, or a subquery's rows). */
export function foldStatementSql(by: LogGroupBy, where: string): string {
  return `SELECT ${FOLD_FUNCTION}(${foldArguments(by)}) FROM call_logs ${where}`;
}

/**
 * The breakdown of `db`'s call log: registers the fold on the connection. Run each call inside
 * one read transaction, so that its statements see one state of the log. The newest `limit`
 * calls are read as breakdown-sql.ts's `timesFrom` says: through the list's order instead, with
 * `GROUP BY` sorting the rows by group, ~170 against ~100 ms over 50,000 calls here
 * (bench/README.md, issue 37).
 */
export function sqliteBreakdownOf(db: Database.Database): (filter: LogFilter, by: LogGroupBy, limit: number) => LogBreakdown {
  let into = new Map<string, GroupFold>();
  // The typings allow one argument after the accumulator; SQLite passes each of foldArguments'.
  const step = (groups: Map<string, GroupFold>, g: string, error: number, tokens: number, latency: number, ttft: number | null, nano: number | string, below: number) => {
    let group = groups.get(g);
    if (group === undefined) {
      group = { requests: 0, errors: 0, tokens: 0, nano: 0, bigNano: 0n, belowNano: 0, latencies: [], ttfts: [] };
      groups.set(g, group);
    }
    group.requests++;
    group.errors += error;
    group.tokens += tokens;
    if (typeof nano === 'string') group.bigNano += BigInt(nano);
    else {
      group.nano += nano;
      if (Math.abs(group.nano) >= SMALL_NANO) {
        group.bigNano += BigInt(group.nano);
        group.nano = 0;
      }
    }
    group.belowNano += below;
    group.latencies.push(Math.round(latency));
    if (ttft !== null) group.ttfts.push(ttft);
    return groups;
  };
  db.aggregate(FOLD_FUNCTION, { start: () => into, step: step as unknown as (total: unknown, next: unknown) => unknown, result: () => null });

  return (filter, by, limit) => {
    const where = logWhere(filter, () => '?');
    const fold = (range: LogFilter, ordered?: number) => {
      const cut = logWhere(range, () => '?');
      if (ordered === undefined) db.prepare(foldStatementSql(by, cut.sql)).get(...cut.params);
      else db.prepare(foldStatementSql(by, `WHERE id IN (${newestRows('id', cut.sql, '?')})`)).get(...cut.params, ordered);
    };
    into = new Map();
    let truncated = false;
    if (limit <= 0) {
      truncated = db.prepare(`SELECT 1 FROM call_logs ${where.sql} LIMIT 1`).get(...where.params) !== undefined;
    } else {
      const edge = db.prepare(timesFrom(where.sql, '?', 2)).pluck().all(...where.params, limit - 1) as number[];
      if (edge.length === 0) fold(filter);
      else {
        const at = edge[0]!;
        truncated = edge.length > 1;
        fold(callsFrom(filter, at + 1));
        let read = 0;
        for (const group of into.values()) read += group.requests;
        fold(callsAt(filter, at), limit - read);
      }
    }
    const groups = [...into].map(([id, group]) => asGroupStats(by, id, group, by === 'key' ? keyNameOf(db, where, id) : null));
    into = new Map();
    return { groups, truncated };
  };
}

/** The name on the key's newest call of the range. */
function keyNameOf(db: Database.Database, where: WhereClause, id: string): unknown {
  return db.prepare(`SELECT ${keyNameColumn('key', where.sql)} FROM (SELECT ? AS g) grouped`).pluck().get(...where.params, id);
}

function asGroupStats(by: LogGroupBy, id: string, group: GroupFold, name: unknown): LogGroupStats {
  const latency = Float64Array.from(group.latencies).sort();
  const ttft = Float64Array.from(group.ttfts).sort();
  return {
    id,
    name: keyName(by, id, name),
    request_count: group.requests,
    error_count: group.errors,
    total_tokens: group.tokens,
    billed_cost: fromScaled((group.bigNano + BigInt(group.nano)) * 1000n + BigInt(group.belowNano)),
    ttft_p50: percentile(ttft, 0.5),
    ttft_p95: percentile(ttft, 0.95),
    latency_p50: percentile(latency, 0.5),
    latency_p95: percentile(latency, 0.95),
  };
}
