import { describe, expect, it } from 'vitest';
import { breakdownStats, MAX_BREAKDOWN_ROWS, parseDimension, percentile } from './breakdown.ts';
import { createSqliteLogStore } from '../logs/sqlite.ts';
import { makeRecord } from '../logs/test-records.ts';
import type { LogRecord, LogStore } from '../logs/types.ts';
import type { StatsQuery } from './query.ts';

/** The in-thread SQLite store (in memory) holding `records`. */
async function storeWith(records: LogRecord[]): Promise<LogStore> {
  const store = createSqliteLogStore({ file: ':memory:' });
  await store.migrate();
  await store.insertBatch(records);
  return store;
}

const q = (over: Partial<StatsQuery> = {}): StatsQuery => ({ start_date: '2024-03-01', end_date: '2024-03-31', timezone: 'UTC', group_by: 'day', ...over });
const at = (iso: string) => Date.parse(iso);

const records = [
  makeRecord({ id: 'a', created_at: at('2024-03-01T00:00:00Z'), model: 'm1', provider_id: 'p1', ttft_ms: 100, latency_ms: 400, input_cost: '0.1', output_cost: '0.2' }),
  makeRecord({ id: 'b', created_at: at('2024-03-02T00:00:00Z'), model: 'm1', provider_id: 'p1', ttft_ms: 300, latency_ms: 900, input_cost: '0.1', output_cost: '0.2' }),
  makeRecord({ id: 'c', created_at: at('2024-03-03T00:00:00Z'), model: 'm1', provider_id: 'p2', latency_ms: 50, status: 'error', error_code: 'upstream_timeout', input_cost: '5', output_cost: '5', billed: false }),
  makeRecord({ id: 'd', created_at: at('2024-03-04T00:00:00Z'), model: 'm2', provider_id: 'p2', account_id: 'a2', group_id: 'g2', api_key_id: 'k2', api_key_name: 'Two', latency_ms: 70 }),
  // Outside the range (the last millisecond of February, the first of April): not counted.
  makeRecord({ id: 'e', created_at: at('2024-02-29T23:59:59.999Z'), model: 'm1' }),
  makeRecord({ id: 'f', created_at: at('2024-04-01T00:00:00Z'), model: 'm1' }),
];

describe('statistics breakdown', () => {
  it('counts requests, errors, tokens, billed cost and latency percentiles per model', async () => {
    const result = await breakdownStats(await storeWith(records), q(), 'model');
    expect(result).toEqual({
      object: 'breakdown',
      by: 'model',
      currency: 'CNY',
      truncated: false,
      data: [
        { id: 'm1', name: 'm1', request_count: 3, error_count: 1, total_tokens: 6, cost: 0.6, ttft_p50: 100, ttft_p95: 300, latency_p50: 400, latency_p95: 900 },
        { id: 'm2', name: 'm2', request_count: 1, error_count: 0, total_tokens: 2, cost: 0, ttft_p50: null, ttft_p95: null, latency_p50: 70, latency_p95: 70 },
      ],
    });
  });

  it('groups by provider, key (with its name), account and group', async () => {
    const store = await storeWith(records);
    const rows = async (by: Parameters<typeof breakdownStats>[2]) => (await breakdownStats(store, q(), by)).data.map((r) => [r.id, r.name, r.request_count, r.error_count]);
    expect(await rows('provider')).toEqual([['p1', 'p1', 2, 0], ['p2', 'p2', 2, 1]]);
    expect(await rows('key')).toEqual([['k1', 'Key one', 3, 1], ['k2', 'Two', 1, 0]]);
    expect(await rows('account')).toEqual([['a1', 'a1', 3, 1], ['a2', 'a2', 1, 0]]);
    expect(await rows('group')).toEqual([['', '', 3, 1], ['g2', 'g2', 1, 0]]);
  });

  it("keeps to the caller's account and converts cost at the rate", async () => {
    const result = await breakdownStats(await storeWith(records), q({ account_id: 'a1', currency: 'USD', rate: '0.5' }), 'model');
    expect(result.currency).toBe('USD');
    expect(result.data.map((r) => [r.id, r.request_count, r.cost])).toEqual([['m1', 3, 0.3]]);
  });

  it('says when the range holds more calls than it reads, and counts the newest', async () => {
    const many = Array.from({ length: MAX_BREAKDOWN_ROWS + 1 }, (_, i) =>
      makeRecord({ id: `r${i}`, created_at: at('2024-03-10T00:00:00Z') + i, model: i === 0 ? 'oldest' : 'm1' }));
    const result = await breakdownStats(await storeWith(many), q(), 'model');
    expect(result.truncated).toBe(true);
    expect(result.data.map((r) => [r.id, r.request_count])).toEqual([['m1', MAX_BREAKDOWN_ROWS]]);
  });

  it('refuses an unknown dimension naming `by`, and defaults to model', () => {
    expect(parseDimension(null)).toBe('model');
    expect(() => parseDimension('colour')).toThrow(expect.objectContaining({ status: 400, param: 'by' }));
  });

  it('takes percentiles by nearest rank', () => {
    expect(percentile([], 0.5)).toBeNull();
    expect(percentile([5], 0.95)).toBe(5);
    expect(percentile([1, 2, 3, 4], 0.5)).toBe(2);
    expect(percentile(Array.from({ length: 100 }, (_, i) => i + 1), 0.95)).toBe(95);
  });
});
