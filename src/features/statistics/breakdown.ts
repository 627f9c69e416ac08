/**
 * `GET /v1/statistics/breakdown` (additive, not in spec 4.7): requests, errors, tokens, cost and
 * latency percentiles per model, provider, key, account or group over a range of local days.
 *
 * Percentiles need each call's time, which the 15-minute rollups do not keep: this reads the log
 * rows of the range (list items, never bodies) in pages, up to MAX_BREAKDOWN_ROWS calls, newest
 * first; past that the answer says `truncated: true` and covers the newest calls only. Rows whose
 * logs retention has deleted are not counted (the rollup-based statistics still count them).
 */
import { convertScaled } from '../../config/currency.ts';
import { invalidValue } from '../../kernel/errors.ts';
import { decimalToNumber, fromScaled, toScaled } from '../../kernel/decimal.ts';
import { dayBoundaries } from '../../kernel/time.ts';
import type { LogListItem, LogStore } from '../logs/types.ts';
import type { StatsQuery } from './query.ts';

export const BREAKDOWN_DIMENSIONS = ['model', 'provider', 'key', 'account', 'group'] as const;
export type BreakdownDimension = (typeof BREAKDOWN_DIMENSIONS)[number];

/** Most calls one answer reads (pages of PAGE rows). */
export const MAX_BREAKDOWN_ROWS = 50_000;
const PAGE = 1_000;

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

interface Acc {
  name: string;
  requests: number;
  errors: number;
  tokens: number;
  cost: bigint;
  ttft: number[];
  latency: number[];
}

function keyOf(item: LogListItem, by: BreakdownDimension): [string, string] {
  switch (by) {
    case 'model':
      return [item.model, item.model];
    case 'provider':
      return [item.provider ?? '', item.provider ?? ''];
    case 'key':
      return [item.api_key_id, item.api_key_name || item.api_key_id];
    case 'account':
      return [item.account_id, item.account_id];
    case 'group':
      return [item.group_id ?? '', item.group_id ?? ''];
  }
}

/** The value at rank ⌈p·n⌉ of the sorted values (nearest-rank percentile). */
export function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil(p * sorted.length))) - 1]!;
}

export async function breakdownStats(store: LogStore, q: StatsQuery, by: BreakdownDimension): Promise<BreakdownResult> {
  const { starts } = dayBoundaries(q.start_date, q.end_date, q.timezone);
  const filter = { start_time: starts[0]!, end_time: starts[starts.length - 1]! - 1, api_key_id: q.api_key_id, account_id: q.account_id };
  const groups = new Map<string, Acc>();
  let read = 0;
  let total = 0;
  for (let page = 1; read < MAX_BREAKDOWN_ROWS; page++) {
    const { items, total: all } = await store.list(filter, page, PAGE);
    total = all;
    for (const item of items.slice(0, MAX_BREAKDOWN_ROWS - read)) add(groups, item, by);
    read += items.length;
    if (items.length < PAGE) break;
  }
  const data = [...groups].map(([id, a]): BreakdownRow => {
    const ttft = a.ttft.sort((x, y) => x - y);
    const latency = a.latency.sort((x, y) => x - y);
    return {
      id,
      name: a.name,
      request_count: a.requests,
      error_count: a.errors,
      total_tokens: a.tokens,
      cost: decimalToNumber(fromScaled(convertScaled(a.cost, q.rate ?? null))),
      ttft_p50: percentile(ttft, 0.5),
      ttft_p95: percentile(ttft, 0.95),
      latency_p50: percentile(latency, 0.5),
      latency_p95: percentile(latency, 0.95),
    };
  });
  data.sort((x, y) => y.request_count - x.request_count || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
  return { object: 'breakdown', by, currency: q.currency ?? 'CNY', data, truncated: total > MAX_BREAKDOWN_ROWS };
}

function add(groups: Map<string, Acc>, item: LogListItem, by: BreakdownDimension): void {
  const [id, name] = keyOf(item, by);
  let a = groups.get(id);
  if (!a) groups.set(id, (a = { name, requests: 0, errors: 0, tokens: 0, cost: 0n, ttft: [], latency: [] }));
  a.requests++;
  if (item.status === 'error') a.errors++;
  a.tokens += item.request_tokens + item.response_tokens;
  if (item.billed) a.cost += toScaled(item.cost.input) + toScaled(item.cost.output);
  if (item.ttft_ms != null) a.ttft.push(item.ttft_ms);
  a.latency.push(item.latency);
}
