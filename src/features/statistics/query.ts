/**
 * Statistics (spec 2.8) computed from the store's 15-minute rollup rows, shared by both stores.
 * The database sums per bucket (or per model); this file folds buckets into the account's
 * local days or months, so timezone and DST rules live in one place (time.ts).
 *
 * Conventions (CONTRACT.md leaves them open):
 * - Days and months are local to `timezone`; `end_date` is inclusive.
 * - Days (or months) without calls are omitted from `data`.
 * - `group_by=model` on usage and cost gives rows keyed `model` instead of `date`.
 * - Every call counts for tokens, requests and latency; only billed calls count for cost.
 * - Amounts are summed exactly, then rounded to 6 decimals as JSON numbers.
 * - Zones whose offset is not a multiple of 15 minutes (only historical ones) are bucketed at
 *   15-minute resolution: a bucket belongs to the day in which it starts.
 */
import { convertScaled } from '../../config/currency.ts';
import { decimalToNumber, fromScaled, toScaled } from '../../kernel/decimal.ts';
import { BUCKET_MS, HOUR_MS, type LogStore, type RollupFilter, type RollupRow } from '../logs/types.ts';
import { dayBoundaries } from '../../kernel/time.ts';

export type GroupBy = 'day' | 'month' | 'model';

/** A validated statistics query (see `parseStatsQuery`). */
export interface StatsQuery {
  start_date: string;
  end_date: string;
  timezone: string;
  group_by: GroupBy;
  api_key_id?: string;
  /** Undefined: all accounts (admin). */
  account_id?: string;
  /** Label of the cost result (the account's settlement currency, when it has a rate). */
  currency?: string;
  /** Factor from the ledger's currency (the prices') to `currency`; null or absent: none. */
  rate?: string | null;
}

export interface UsageTotals {
  total_tokens: number;
  prompt_tokens: number;
  completion_tokens: number;
  request_count: number;
}
export type UsageRow = ({ date: string } | { model: string }) & UsageTotals & { avg_latency: number };
export interface UsageResult {
  object: 'usage';
  data: UsageRow[];
  summary: UsageTotals;
}

export type CostRow = ({ date: string } | { model: string }) & { input_cost: number; output_cost: number; total_cost: number };
export interface CostResult {
  object: 'cost';
  currency: string;
  data: CostRow[];
  summary: { total_input_cost: number; total_output_cost: number; total_cost: number };
}

export interface ModelUsageRow {
  model: string;
  request_count: number;
  total_tokens: number;
  cost: number;
  percentage: number;
}
export interface ModelUsageResult {
  object: 'model_usage';
  data: ModelUsageRow[];
}

interface Acc {
  request_count: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  latency_sum: number;
  input: bigint;
  output: bigint;
}

/** Usage per local day, month or model (spec 2.8 `usage`). */
export async function usageStats(store: LogStore, q: StatsQuery): Promise<UsageResult> {
  const groups = await grouped(store, q, q.group_by);
  const total = emptyAcc();
  const data: UsageRow[] = [];
  for (const [key, a] of groups) {
    addAcc(total, a);
    data.push({ ...label(q.group_by, key), ...usageTotals(a), avg_latency: avg(a) } as UsageRow);
  }
  return { object: 'usage', data, summary: usageTotals(total) };
}

/** Cost per local day, month or model (spec 2.8 `cost`). */
export async function costStats(store: LogStore, q: StatsQuery): Promise<CostResult> {
  const groups = await grouped(store, q, q.group_by);
  let input = 0n;
  let output = 0n;
  const data: CostRow[] = [];
  for (const [key, a] of groups) {
    input += a.input;
    output += a.output;
    data.push({ ...label(q.group_by, key), ...costs(a.input, a.output, q.rate) } as CostRow);
  }
  const sum = costs(input, output, q.rate);
  return {
    object: 'cost',
    currency: q.currency ?? 'CNY',
    data,
    summary: { total_input_cost: sum.input_cost, total_output_cost: sum.output_cost, total_cost: sum.total_cost },
  };
}

/** Per-model usage, most tokens first; `percentage` = share of total_tokens in % (2 places). */
export async function modelStats(store: LogStore, q: StatsQuery): Promise<ModelUsageResult> {
  const groups = await grouped(store, q, 'model');
  let allTokens = 0;
  for (const a of groups.values()) allTokens += a.total_tokens;
  const data = [...groups].map(([model, a]) => ({
    model,
    request_count: a.request_count,
    total_tokens: a.total_tokens,
    cost: costs(a.input, a.output, q.rate).total_cost,
    percentage: allTokens > 0 ? Math.round((a.total_tokens * 10_000) / allTokens) / 100 : 0,
  }));
  data.sort((x, y) => y.total_tokens - x.total_tokens || (x.model < y.model ? -1 : x.model > y.model ? 1 : 0));
  return { object: 'model_usage', data };
}

/** Sums rollup rows into ordered groups keyed by local date, local month or model. */
async function grouped(store: LogStore, q: StatsQuery, by: GroupBy): Promise<Map<string, Acc>> {
  const { dates, starts } = dayBoundaries(q.start_date, q.end_date, q.timezone);
  const filter = { api_key_id: q.api_key_id, account_id: q.account_id };
  const from = starts[0]!;
  const to = starts[starts.length - 1]!;
  const out = new Map<string, Acc>();
  if (by === 'model') {
    for (const r of await store.rollup(from, to, filter, 'model')) addRow(at(out, r.model), r);
    return out;
  }
  // Rows come ordered by bucket and days are ordered: one forward walk assigns each bucket.
  let day = 0;
  for (const r of await dayRows(store, starts, filter)) {
    while (day < dates.length - 1 && r.bucket_ms >= starts[day + 1]!) day++;
    const date = dates[day]!;
    addRow(at(out, by === 'month' ? date.slice(0, 7) : date), r);
  }
  return out;
}

/**
 * Rollup rows over the days that `starts` bound, ordered by time, each inside one day: hourly
 * rows (a quarter as many to read), and 15-minute rows only for the hours a day starts inside
 * (zones such as +5:30 or +5:45, where a day starts at :30 or :45).
 */
async function dayRows(store: LogStore, starts: number[], filter: RollupFilter): Promise<RollupRow[]> {
  const from = starts[0]!;
  const to = starts[starts.length - 1]!;
  const split = new Set(starts.filter((s) => s % HOUR_MS !== 0).map((s) => s - (s % HOUR_MS)));
  if (split.size === 0) return store.rollup(from, to, filter, 'hour');
  const buckets = [...split].flatMap((h) => [0, 1, 2, 3].map((i) => h + i * BUCKET_MS)).filter((b) => b >= from && b < to);
  const [hourly, quarters] = await Promise.all([
    store.rollup(from - (from % HOUR_MS), to - (to % HOUR_MS) + HOUR_MS, filter, 'hour'),
    store.rollup(from, to, { ...filter, buckets }, 'bucket'),
  ]);
  // A store that ignores `buckets` (the previous release's) returns every quarter: keep the asked ones.
  const asked = new Set(buckets);
  return mergeByBucket(hourly.filter((r) => !split.has(r.bucket_ms)), quarters.filter((r) => asked.has(r.bucket_ms)));
}

/** Two lists ordered by bucket_ms as one. */
function mergeByBucket(a: RollupRow[], b: RollupRow[]): RollupRow[] {
  const out: RollupRow[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i]!.bucket_ms <= b[j]!.bucket_ms)) out.push(a[i++]!);
    else out.push(b[j++]!);
  }
  return out;
}

function at(map: Map<string, Acc>, key: string): Acc {
  let a = map.get(key);
  if (!a) map.set(key, (a = emptyAcc()));
  return a;
}

function emptyAcc(): Acc {
  return { request_count: 0, prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, latency_sum: 0, input: 0n, output: 0n };
}

/** A rollup row is an Acc whose costs are still decimal strings. */
function addRow(a: Acc, r: RollupRow): void {
  addAcc(a, { ...r, input: toScaled(r.input_cost), output: toScaled(r.output_cost) });
}

function addAcc(a: Acc, b: Acc): void {
  a.request_count += b.request_count;
  a.prompt_tokens += b.prompt_tokens;
  a.completion_tokens += b.completion_tokens;
  a.total_tokens += b.total_tokens;
  a.latency_sum += b.latency_sum;
  a.input += b.input;
  a.output += b.output;
}

function usageTotals(a: Acc): UsageTotals {
  return {
    total_tokens: a.total_tokens,
    prompt_tokens: a.prompt_tokens,
    completion_tokens: a.completion_tokens,
    request_count: a.request_count,
  };
}

function avg(a: Acc): number {
  return a.request_count > 0 ? Math.round(a.latency_sum / a.request_count) : 0;
}

/** Amounts in the shown currency: summed exactly in the ledger's, then converted once. */
function costs(input: bigint, output: bigint, rate: string | null = null) {
  return {
    input_cost: decimalToNumber(fromScaled(convertScaled(input, rate))),
    output_cost: decimalToNumber(fromScaled(convertScaled(output, rate))),
    total_cost: decimalToNumber(fromScaled(convertScaled(input + output, rate))),
  };
}

function label(by: GroupBy, key: string): { date: string } | { model: string } {
  return by === 'model' ? { model: key } : { date: key };
}
