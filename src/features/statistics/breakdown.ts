/**
 * `GET /v1/statistics/breakdown` (additive, not in spec 4.7): requests, errors, tokens, cost and
 * latency percentiles per model, provider, key, account or group over a range of local days.
 *
 * Percentiles need each call's time, which the 15-minute rollups do not keep: the store folds the
 * log rows of the range in one query (LogStore.breakdown), up to MAX_BREAKDOWN_ROWS calls, newest
 * first; past that the answer says `truncated: true` and covers the newest calls only. Rows whose
 * logs retention has deleted are not counted (the rollup-based statistics still count them).
 */
import { convertScaled } from '../../config/currency.ts';
import { invalidValue } from '../../kernel/errors.ts';
import { decimalToNumber, fromScaled, toScaled } from '../../kernel/decimal.ts';
import { dayBoundaries } from '../../kernel/time.ts';
import type { LogStore } from '../logs/types.ts';
import type { StatsQuery } from './query.ts';

export const BREAKDOWN_DIMENSIONS = ['model', 'provider', 'key', 'account', 'group'] as const;
export type BreakdownDimension = (typeof BREAKDOWN_DIMENSIONS)[number];

/** Most calls one answer reads (the newest of the range). */
export const MAX_BREAKDOWN_ROWS = 50_000;

export interface BreakdownRow {
  /** The model, provider id, key id, account id or group id ('' for none, e.g. a call no provider served). */
  id: string;
  /** The key's name for `by=key`; else the id. */
  name: string;
  request_count: number;
  error_count: number;
  total_tokens: number;
  /** Billed calls only, in the result's currency. */
  cost: number;
  /** Milliseconds, nearest rank; null when no call of the row has the figure (TTFT: streamed calls). */
  ttft_p50: number | null;
  ttft_p95: number | null;
  latency_p50: number | null;
  latency_p95: number | null;
}

export interface BreakdownResult {
  object: 'breakdown';
  by: BreakdownDimension;
  currency: string;
  data: BreakdownRow[];
  truncated: boolean;
}

export function parseDimension(value: string | null): BreakdownDimension {
  const by = value || 'model';
  if (!(BREAKDOWN_DIMENSIONS as readonly string[]).includes(by)) {
    throw invalidValue(`by must be one of ${BREAKDOWN_DIMENSIONS.join(', ')}.`, 'by');
  }
  return by as BreakdownDimension;
}

/** The value at rank ⌈p·n⌉ of the sorted values (nearest-rank percentile). */
export { percentile } from '../logs/breakdown-sql.ts';

export async function breakdownStats(store: LogStore, q: StatsQuery, by: BreakdownDimension): Promise<BreakdownResult> {
  const { starts } = dayBoundaries(q.start_date, q.end_date, q.timezone);
  const filter = { start_time: starts[0]!, end_time: starts[starts.length - 1]! - 1, api_key_id: q.api_key_id, account_id: q.account_id };
  const { groups, truncated } = await store.breakdown(filter, by, MAX_BREAKDOWN_ROWS);
  const data = groups.map((g): BreakdownRow => ({
    id: g.id,
    name: g.name,
    request_count: g.request_count,
    error_count: g.error_count,
    total_tokens: g.total_tokens,
    cost: decimalToNumber(fromScaled(convertScaled(toScaled(g.billed_cost), q.rate ?? null))),
    ttft_p50: g.ttft_p50,
    ttft_p95: g.ttft_p95,
    latency_p50: g.latency_p50,
    latency_p95: g.latency_p95,
  }));
  data.sort((x, y) => y.request_count - x.request_count || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
  return { object: 'breakdown', by, currency: q.currency ?? 'CNY', data, truncated };
}
