/**
 * LogStore.breakdown against the way the breakdown was computed before it had its own query:
 * list pages, newest first, folded in JavaScript. sqlite.test.ts and postgres.test.ts run it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fromScaled, toScaled } from '../../kernel/decimal.ts';
import { percentile } from './breakdown-sql.ts';
import type { StoreHandle } from './store.suite.ts';
import { makeRecord } from './test-records.ts';
import { inlineBodies, withBodies } from './bodies.suite.ts';
import type { LogFilter, LogGroupBy, LogGroupStats, LogListItem, LogRecord, LogStore } from './types.ts';

const BY: LogGroupBy[] = ['model', 'provider', 'key', 'account', 'group'];
const T0 = Date.parse('2024-03-10T00:00:00Z');

/**
 * 120 calls: many share a millisecond (ties the id must order), a key renamed over time, errors,
 * unbilled calls, calls without TTFT, provider or group, costs with 12 places (which the 9-place
 * nano copy would round).
 */
function records(): LogRecord[] {
  return Array.from({ length: 120 }, (_, i) => {
    const n = (i * 37) % 120;
    const id = `r${String(n).padStart(3, '0')}${'xyz'[i % 3]}`;
    const { request, response, attempts, error_message } = withBodies(id, 0);
    return makeRecord({
      id, request, response, attempts, error_message,
      created_at: T0 + Math.floor(n / 4) * 1000,
      model: `m${i % 3}`,
      provider_id: i % 5 === 0 ? null : `p${i % 2}`,
      group_id: i % 4 === 0 ? null : `g${i % 3}`,
      account_id: `a${i % 2}`,
      api_key_id: `k${i % 4}`,
      api_key_name: i % 4 === 3 ? '' : `key ${i % 4} v${Math.floor(n / 40)}`,
      status: i % 7 === 0 ? 'error' : 'success',
      billed: i % 6 !== 0,
      request_tokens: i,
      response_tokens: 2 * i + 1,
      latency_ms: 50 + ((i * 53) % 400),
      ttft_ms: i % 3 === 0 ? null : (i * 29) % 90,
      input_cost: `0.${String(i * 7919).padStart(12, '0')}`,
      output_cost: i % 11 === 0 ? `-0.00000000${i}` : `${i}.000000000${(i * 13) % 1000}`.slice(0, 16),
    });
  });
}

/** The fold the breakdown did over list pages before LogStore.breakdown existed. */
async function paged(store: LogStore, filter: LogFilter, by: LogGroupBy, limit: number) {
  const groups = new Map<string, { name: string; items: LogListItem[] }>();
  let read = 0;
  let total = 0;
  for (let page = 1; read < limit; page++) {
    const { items, total: all } = await store.list(filter, page, 10);
    total = all;
    for (const item of items.slice(0, limit - read)) {
      const [id, name] = keyOf(item, by);
      if (!groups.has(id)) groups.set(id, { name, items: [] });
      groups.get(id)!.items.push(item);
    }
    read += items.length;
    if (items.length < 10) break;
  }
  const stats = [...groups].map(([id, { name, items }]): LogGroupStats => {
    const ttft = items.flatMap((i) => (i.ttft_ms == null ? [] : [i.ttft_ms])).sort((x, y) => x - y);
    const latency = items.map((i) => i.latency).sort((x, y) => x - y);
    const cost = items.reduce((c, i) => (i.billed ? c + toScaled(i.cost.input) + toScaled(i.cost.output) : c), 0n);
    return {
      id, name, request_count: items.length, error_count: items.filter((i) => i.status === 'error').length,
      total_tokens: items.reduce((t, i) => t + i.request_tokens + i.response_tokens, 0), billed_cost: fromScaled(cost),
      ttft_p50: percentile(ttft, 0.5), ttft_p95: percentile(ttft, 0.95),
      latency_p50: percentile(latency, 0.5), latency_p95: percentile(latency, 0.95),
    };
  });
  return { groups: sorted(stats), truncated: total > limit };
}

function keyOf(item: LogListItem, by: LogGroupBy): [string, string] {
  if (by === 'provider') return [item.provider ?? '', item.provider ?? ''];
  if (by === 'group') return [item.group_id ?? '', item.group_id ?? ''];
  if (by === 'key') return [item.api_key_id, item.api_key_name || item.api_key_id];
  return by === 'model' ? [item.model, item.model] : [item.account_id, item.account_id];
}

const sorted = (groups: LogGroupStats[]) =>
  groups.map((g) => ({ ...g, billed_cost: fromScaled(toScaled(g.billed_cost)) })).sort((a, b) => (a.id < b.id ? -1 : 1));

export function describeBreakdown(name: string, open: () => Promise<StoreHandle>): void {
  describe(`LogStore.breakdown: ${name}`, () => {
    let handle: StoreHandle;
    let store: LogStore;
    beforeEach(async () => {
      handle = await open();
      store = handle.store;
      await store.insertBatch(records());
    });
    afterEach(() => handle.cleanup());

    it('gives what paging the list gave, per dimension, with and without truncation', async () => {
      const window = { start_time: T0 + 2000, end_time: T0 + 27_000 };
      const filters: LogFilter[] = [{}, window, { ...window, account_id: 'a1' }, { api_key_id: 'k2' }];
      // 120 rows; 41 cuts a millisecond of 4 tied calls after its first; 200 reads all in two
      // halves (PostgreSQL's split), 1,000 in one.
      for (const filter of filters) {
        for (const limit of [41, 7, 200, 1_000]) {
          for (const by of BY) {
            const got = await store.breakdown(filter, by, limit);
            expect({ groups: sorted(got.groups), truncated: got.truncated }, `${by} ${limit} ${JSON.stringify(filter)}`).toEqual(
              await paged(store, filter, by, limit),
            );
          }
        }
      }
    });

    it('answers alike whether the calls keep their texts inline (the previous release) or beside', async () => {
      const answer = async (filter: LogFilter, by: LogGroupBy, limit: number) => {
        const { groups, truncated } = await store.breakdown(filter, by, limit);
        return { groups: sorted(groups), truncated };
      };
      const answers = () => Promise.all(BY.flatMap((by) => [answer({}, by, 41), answer({ api_key_id: 'k2', account_id: 'a0' }, by, 1_000)]));
      const beside = await answers();
      await inlineBodies(handle, records().filter((_, i) => i % 2 === 0).map((r) => r.id));
      expect(await answers()).toEqual(beside);
    });

    it('sums costs of millions exactly, past what a double holds in nano units', async () => {
      // 2^52 nano units are ~4.5 million: the first three sum past 2^53 to an odd count of nano
      // units (no double holds it), the last is past 2^52 alone.
      const at = T0 - 60_000;
      const costs = [['3000000.000000001001', '0.000000000002'], ['3010000.100000001', '0'], ['2999999.000000001', '0'], ['5000000.5', '4000000.25']];
      await store.insertBatch(costs.map(([input_cost, output_cost], i) =>
        makeRecord({ id: `big${i}`, created_at: at + i, model: 'big', billed: true, input_cost, output_cost })));
      const { groups } = await store.breakdown({ start_time: at, end_time: at + 10 }, 'model', 10);
      expect(groups.map((g) => [g.id, g.request_count, fromScaled(toScaled(g.billed_cost))])).toEqual([['big', 4, '18009999.850000003003']]);
    });

    it('says truncated only when more calls match than it read', async () => {
      expect((await store.breakdown({}, 'model', 120)).truncated).toBe(false);
      expect((await store.breakdown({}, 'model', 119)).truncated).toBe(true);
      expect(await store.breakdown({}, 'model', 1)).toMatchObject({ groups: [{ request_count: 1 }], truncated: true });
      expect(await store.breakdown({}, 'model', 0)).toEqual({ groups: [], truncated: true });
      const none = await store.breakdown({ start_time: T0 - 10, end_time: T0 - 1 }, 'model', 5);
      expect(none).toEqual({ groups: [], truncated: false });
    });
  });
}
