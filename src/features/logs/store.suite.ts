/**
 * The one behaviour suite every LogStore must pass; sqlite.test.ts and postgres.test.ts run it.
 * Statistics are checked here too, since they read the store's rollups.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { costStats, modelStats, usageStats } from '../statistics/query.ts';
import type { StatsQuery } from '../statistics/query.ts';
import { exportStatistics } from '../statistics/export.ts';
import { makeRecord, statsRecords } from './test-records.ts';
import { toScaled } from '../../kernel/decimal.ts';
import type { LogStore } from './types.ts';

export interface StoreHandle {
  store: LogStore;
  /** One SQL statement on the store's database, beside the store (to set up rows as an older release wrote them). */
  query(sql: string): Promise<Record<string, unknown>[]>;
  cleanup(): Promise<void>;
}

const byId = (id: string) => statsRecords.find((r) => r.id === id)!;
const q = (over: Partial<StatsQuery>): StatsQuery => ({
  start_date: '2024-03-01', end_date: '2024-03-31', timezone: 'UTC', group_by: 'day', ...over,
});

/** `name` titles the suite; `kind` is what the store must report (default: the name). */
export function describeLogStore(name: string, open: () => Promise<StoreHandle>, kind: string = name): void {
  describe(`LogStore contract: ${name}`, () => {
    let handle: StoreHandle;
    let store: LogStore;

    beforeEach(async () => {
      handle = await open();
      store = handle.store;
      await store.insertBatch(statsRecords);
    });
    afterEach(async () => {
      await handle.cleanup();
    });

    it('lists newest first with the spec list fields', async () => {
      const { items, total } = await store.list({}, 1, 100);
      expect(total).toBe(6);
      expect(items.map((i) => i.id)).toEqual(['log_D', 'log_C', 'log_B', 'log_F', 'log_E', 'log_A']);
      expect(items[0]).toEqual({
        id: 'log_D', api_key_id: 'k3', api_key_name: 'Key three', model: 'm2', request_tokens: 7,
        response_tokens: 3, status: 'success', latency: 50, ip: '127.0.0.1', created_at: '2024-03-31T20:00:00.000Z',
        account_id: 'a2', group_id: null, provider: 'p1', endpoint: 'chat', error_code: null, ttft_ms: null, billed: true,
        cost: { input: 0.3, output: 0.4, total: 0.7, currency: 'CNY' },
      });
    });

    it('filters by provider, error code and endpoint', async () => {
      await store.insertBatch([
        makeRecord({ id: 'log_P', created_at: Date.parse('2024-04-02T00:00:00Z'), provider_id: 'p2', endpoint: 'embeddings' }),
        makeRecord({ id: 'log_Q', created_at: Date.parse('2024-04-01T00:00:00Z'), provider_id: 'p2', endpoint: 'messages', status: 'error', error_code: 'upstream_timeout' }),
      ]);
      const ids = async (f: Parameters<LogStore['list']>[0]) => (await store.list(f, 1, 100)).items.map((i) => i.id);
      expect(await ids({ provider: 'p2' })).toEqual(['log_P', 'log_Q']);
      expect(await ids({ error_code: 'upstream_timeout' })).toEqual(['log_Q']);
      expect(await ids({ error_code: 'upstream_unavailable' })).toEqual(['log_E']);
      expect(await ids({ endpoint: 'embeddings' })).toEqual(['log_P']);
      expect(await ids({ endpoint: 'chat', provider: 'p2' })).toEqual([]);
      expect((await store.list({ error_code: 'upstream_timeout' }, 1, 1)).items[0]).toMatchObject({ provider: 'p2', endpoint: 'messages', error_code: 'upstream_timeout' });
    });

    it('filters by each field and by an inclusive time window', async () => {
      const ids = async (f: Parameters<LogStore['list']>[0]) => (await store.list(f, 1, 100)).items.map((i) => i.id);
      expect(await ids({ api_key_id: 'k2' })).toEqual(['log_B', 'log_F']);
      expect(await ids({ model: 'm2' })).toEqual(['log_D', 'log_B']);
      expect(await ids({ status: 'error' })).toEqual(['log_E']);
      expect(await ids({ status: 'success', model: 'm1' })).toEqual(['log_C', 'log_F', 'log_A']);
      expect(await ids({ account_id: 'a2' })).toEqual(['log_D']);
      expect(await ids({ start_time: byId('log_F').created_at, end_time: byId('log_C').created_at })).toEqual([
        'log_C', 'log_B', 'log_F',
      ]);
      expect(await ids({ api_key_id: 'nobody' })).toEqual([]);
    });

    it('paginates with the total of the whole filter, and past the end gives no items', async () => {
      expect(await store.list({}, 2, 4)).toMatchObject({ total: 6, items: [{ id: 'log_E' }, { id: 'log_A' }] });
      expect(await store.list({}, 3, 4)).toEqual({ total: 6, items: [] });
      expect(await store.list({ model: 'm1' }, 2, 2)).toMatchObject({ total: 4, items: [{ id: 'log_E' }, { id: 'log_A' }] });
    });

    it('pages through filters combined with a status and a window, in order, with their totals', async () => {
      const base = Date.parse('2024-06-01T00:00:00Z');
      // Ties on created_at, so the id decides the order within the same millisecond.
      await store.insertBatch(Array.from({ length: 9 }, (_, i) => makeRecord({
        id: `log_t${i}`, created_at: base + Math.floor(i / 3), api_key_id: 'k9', provider_id: i % 2 ? 'p9' : 'p8',
        status: i === 4 ? 'error' : 'success', error_code: i === 4 ? 'upstream_timeout' : null,
      })));
      const page = async (f: Parameters<LogStore['list']>[0], n: number, size: number) => {
        const { items, total } = await store.list(f, n, size);
        return [total, items.map((i) => i.id)];
      };
      expect(await page({ api_key_id: 'k9', status: 'success' }, 1, 3)).toEqual([8, ['log_t8', 'log_t7', 'log_t6']]);
      expect(await page({ api_key_id: 'k9', status: 'success' }, 2, 3)).toEqual([8, ['log_t5', 'log_t3', 'log_t2']]);
      expect(await page({ status: 'success', provider: 'p9', start_time: base, end_time: base + 1 }, 1, 10)).toEqual([3, ['log_t5', 'log_t3', 'log_t1']]);
      expect(await page({ error_code: 'upstream_timeout', api_key_id: 'k9', status: 'error' }, 1, 10)).toEqual([1, ['log_t4']]);
      expect(await page({ api_key_id: 'k9', endpoint: 'chat', model: 'm1', provider: 'p8' }, 2, 2)).toEqual([5, ['log_t4', 'log_t2']]);
    });

    it('sums whole hours and quarter hours alike (a half-hour zone, a whole-hour one)', async () => {
      for (const timezone of ['Asia/Kolkata', 'Asia/Shanghai', 'UTC']) {
        const byDay = await usageStats(store, q({ timezone }));
        const byModel = await usageStats(store, q({ timezone, group_by: 'model' }));
        expect(byModel.summary).toEqual(byDay.summary);
      }
      const hours = await store.rollup(Date.parse('2024-03-01T00:00:00Z'), Date.parse('2024-03-02T00:00:00Z'), {}, 'hour');
      expect(hours.map((r) => [new Date(r.bucket_ms).toISOString(), r.request_count])).toEqual([
        ['2024-03-01T10:00:00.000Z', 1], ['2024-03-01T15:00:00.000Z', 1], ['2024-03-01T16:00:00.000Z', 1], ['2024-03-01T17:00:00.000Z', 1],
      ]);
    });

    it('sums over all accounts exactly what the per-account rows hold, batch after batch', async () => {
      // Three batches land in the same hours (the rollups' upserts add to rows already there),
      // over two accounts, three keys and two models, with costs at 12 places.
      const t0 = Date.parse('2024-07-01T00:00:00Z');
      const keys = [['k1', 'a1'], ['k2', 'a1'], ['k3', 'a2']] as const;
      for (let batch = 0; batch < 3; batch++) {
        await store.insertBatch(Array.from({ length: 24 }, (_, i) => {
          const [api_key_id, account_id] = keys[(i + batch) % 3]!;
          return makeRecord({
            id: `log_all_${batch}_${i}`, created_at: t0 + (i % 4) * 1_800_000 + batch, api_key_id, account_id,
            model: i % 2 ? 'm1' : 'm2', request_tokens: i + 1, response_tokens: batch, latency_ms: 10 + i,
            input_cost: `0.00000000000${(i % 9) + 1}`, output_cost: '0.5', billed: i % 5 !== 0,
          });
        }));
      }
      const from = t0, to = t0 + 2 * 3_600_000;
      const all = await store.rollup(from, to, {}, 'hour');
      const perAccount = [...(await store.rollup(from, to, { account_id: 'a1' }, 'hour')), ...(await store.rollup(from, to, { account_id: 'a2' }, 'hour'))];
      const sum = (rows: typeof all) => {
        const byHour = new Map<number, [number, number, number, number, bigint, bigint]>();
        for (const r of rows) {
          const [n, p, c, l, ic, oc] = byHour.get(r.bucket_ms) ?? [0, 0, 0, 0, 0n, 0n];
          byHour.set(r.bucket_ms, [n + r.request_count, p + r.prompt_tokens, c + r.completion_tokens, l + r.latency_sum, ic + toScaled(r.input_cost), oc + toScaled(r.output_cost)]);
        }
        return [...byHour].sort((x, y) => x[0] - y[0]);
      };
      expect(all.map((r) => r.request_count)).toEqual([36, 36]);
      expect(sum(all)).toEqual(sum(perAccount));
      // The same figures through the statistics, by model, over whole hours.
      const byModel = await store.rollup(from, to, {}, 'model');
      expect(byModel.map((r) => [r.model, r.request_count])).toEqual([['m1', 36], ['m2', 36]]);
    });

    it('puts the calls of an hour a local day starts inside on the right day (+5:30, +5:45)', async () => {
      // Kolkata days start at 18:30 UTC, Kathmandu days at 18:15: these hours hold two days each.
      await store.insertBatch([
        makeRecord({ id: 'log_h1', created_at: Date.parse('2024-05-01T18:10:00Z'), request_tokens: 1, response_tokens: 0 }),
        makeRecord({ id: 'log_h2', created_at: Date.parse('2024-05-01T18:20:00Z'), request_tokens: 10, response_tokens: 0 }),
        makeRecord({ id: 'log_h3', created_at: Date.parse('2024-05-01T18:40:00Z'), request_tokens: 100, response_tokens: 0 }),
        makeRecord({ id: 'log_h4', created_at: Date.parse('2024-05-02T12:00:00Z'), request_tokens: 1000, response_tokens: 0 }),
        makeRecord({ id: 'log_h5', created_at: Date.parse('2024-05-02T18:29:59Z'), request_tokens: 10000, response_tokens: 0 }),
        makeRecord({ id: 'log_h6', created_at: Date.parse('2024-05-02T18:30:00Z'), request_tokens: 100000, response_tokens: 0 }),
      ]);
      const tokensByDay = async (timezone: string) => {
        const usage = await usageStats(store, q({ timezone, start_date: '2024-05-01', end_date: '2024-05-03' }));
        return usage.data.map((d) => [(d as { date: string }).date, d.total_tokens]);
      };
      expect(await tokensByDay('Asia/Kolkata')).toEqual([['2024-05-01', 11], ['2024-05-02', 11100], ['2024-05-03', 100000]]);
      expect(await tokensByDay('Asia/Kathmandu')).toEqual([['2024-05-01', 1], ['2024-05-02', 1110], ['2024-05-03', 110000]]);
      const month = await usageStats(store, q({ timezone: 'Asia/Kolkata', start_date: '2024-05-01', end_date: '2024-05-31', group_by: 'month' }));
      expect(month.data.map((d) => [(d as { date: string }).date, d.total_tokens])).toEqual([['2024-05', 111111]]);
    });

    it('returns the detail record, and null for an unknown id', async () => {
      const record = makeRecord({
        id: 'log_detail', created_at: Date.parse('2024-05-01T00:00:00Z'), request: JSON.stringify({ messages: [{ role: 'user', content: 'hi "x"' }], temperature: 0.7 }),
        response: JSON.stringify({ choices: [{ index: 0 }], usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } }),
        attempts: [{ model: 'm0', provider: 'p0', status: 503, error_code: 'upstream_unavailable', latency_ms: 5 },
          { model: 'm1', provider: 'p1', status: 200, error_code: null, latency_ms: 9 }],
        stream: true, cache_hit: true, cache_similarity: 0.97, ttft_ms: 42, input_cost: '0.1', output_cost: '0.2', user_agent: 'ua/1',
        group_id: 'g1', endpoint: 'responses', cached_tokens: 2, reasoning_tokens: 1, trace_id: '0af7651916cd43dd8448eb211c80319c',
      });
      await store.insertBatch([record]);
      expect(await store.get('log_detail')).toEqual({
        id: 'log_detail', api_key_id: 'k1', api_key_name: 'Key one', model: 'm1', request: JSON.parse(record.request!),
        response: JSON.parse(record.response!), status: 'success', error_code: null, error_message: null, latency: 10,
        ip: '127.0.0.1', user_agent: 'ua/1', created_at: '2024-05-01T00:00:00.000Z', account_id: 'a1', group_id: 'g1',
        provider: 'p1', endpoint: 'responses', http_status: 200, request_tokens: 1, response_tokens: 1,
        cached_tokens: 2, reasoning_tokens: 1, attempts: record.attempts, stream: true, cache_hit: true,
        cache: 'semantic-hit', cache_similarity: 0.97, ttft_ms: 42, trace_id: '0af7651916cd43dd8448eb211c80319c',
        billed: true, sanitized: false, guardrails: [], cost: { input: 0.1, output: 0.2, total: 0.3, currency: 'CNY' },
      });
      expect(await store.get('log_E')).toMatchObject({ status: 'error', error_code: 'upstream_unavailable', error_message: 'bad gateway', request: null, response: null, trace_id: null });
      expect(await store.get('log_nope')).toBeNull();
    });

    it('stores a row whose client text the store cannot hold, with replacements, and says so (the bill stays)', async () => {
      // Lone surrogates and NUL in every client-controlled text, as escapes in the bodies too, and
      // numbers outside PostgreSQL's NUMERIC: the row is stored, never refused.
      const lone = 'hi \ud800 \udc00 \u0000';
      const stored = 'hi \ufffd \ufffd \ufffd';
      const record = makeRecord({
        id: 'log_odd', created_at: Date.parse('2024-03-05T00:00:00Z'), model: `m${lone}`, api_key_name: lone, user_agent: lone,
        error_code: lone, error_message: lone, group_id: lone, provider_id: lone, ip: lone,
        request: `{"messages":[{"role":"user","content":${JSON.stringify(lone)}}],"${'\\ud800'}":1,"tiny":1e-20000,"huge":1e131072}`,
        response: JSON.stringify({ text: lone, pair: '😀' }),
        attempts: [{ model: lone, provider: lone, status: 200, error_code: lone, latency_ms: 1 }],
        input_cost: '0.5', output_cost: '0.25',
      });
      await store.insertBatch([record]);
      const got = await store.get('log_odd');
      expect(got).toMatchObject({
        model: `m${stored}`, api_key_name: stored, user_agent: stored, error_code: stored, error_message: stored,
        group_id: stored, provider: stored, ip: stored, sanitized: true, billed: true,
        request: { messages: [{ role: 'user', content: stored }], '\ufffd': 1, tiny: 0, huge: null },
        response: { text: stored, pair: '😀' },
        attempts: [{ model: stored, provider: stored, status: 200, error_code: stored, latency_ms: 1 }],
      });
      // The original text finds the row (filters replace as the rows were stored), and the bill counts.
      expect((await store.list({ model: `m${lone}` }, 1, 10)).items.map((i) => i.id)).toEqual(['log_odd']);
      const cost = await costStats(store, q({ start_date: '2024-03-05', end_date: '2024-03-05' }));
      expect(cost.summary).toEqual({ total_input_cost: 0.5, total_output_cost: 0.25, total_cost: 0.75 });
      expect((await store.get('log_A'))!.sanitized).toBe(false);
    });

    it('answers filters and ids holding NUL or lone surrogates (no match, never an error)', async () => {
      for (const value of ['\u0000', 'k1\u0000', '\ud800', '\udfff\ud800']) {
        expect(await store.list({ model: value, api_key_id: value, account_id: value }, 1, 10)).toEqual({ items: [], total: 0 });
        expect(await store.get(value)).toBeNull();
        expect(await store.rollup(0, Date.parse('2030-01-01'), { account_id: value, api_key_id: value }, 'model')).toEqual([]);
      }
    });

    it('ignores a duplicate id: one ledger row and one count in the statistics', async () => {
      await store.insertBatch([{ ...byId('log_A'), request_tokens: 999_999, input_cost: '100' }, byId('log_C')]);
      await store.insertBatch([makeRecord({ id: 'log_dup', created_at: Date.parse('2024-03-05T00:00:00Z') }),
        makeRecord({ id: 'log_dup', created_at: Date.parse('2024-03-05T00:00:00Z') })]);
      expect((await store.list({}, 1, 100)).total).toBe(7);
      expect((await store.get('log_A'))!.request_tokens).toBe(100);
      const usage = await usageStats(store, q({}));
      expect(usage.summary).toEqual({ total_tokens: 1683, prompt_tokens: 1121, completion_tokens: 562, request_count: 7 });
      expect((await costStats(store, q({}))).summary.total_input_cost).toBe(1.51);
    });

    it('stores request and response as null when request logging is off', async () => {
      await store.insertBatch([makeRecord({ id: 'log_quiet', request: null, response: null })]);
      expect(await store.get('log_quiet')).toMatchObject({ request: null, response: null });
    });

    it('deletes logs older than a cutoff but keeps the statistics', async () => {
      expect(await store.deleteOlderThan(byId('log_C').created_at)).toBe(4);
      expect((await store.list({}, 1, 10)).items.map((i) => i.id)).toEqual(['log_D', 'log_C']);
      expect((await usageStats(store, q({}))).summary.request_count).toBe(6);
    });

    it('computes usage per UTC day', async () => {
      expect(await usageStats(store, q({}))).toEqual({
        object: 'usage',
        data: [
          { date: '2024-03-01', total_tokens: 171, prompt_tokens: 113, completion_tokens: 58, request_count: 4, avg_latency: 83 },
          { date: '2024-03-02', total_tokens: 1500, prompt_tokens: 1000, completion_tokens: 500, request_count: 1, avg_latency: 300 },
          { date: '2024-03-31', total_tokens: 10, prompt_tokens: 7, completion_tokens: 3, request_count: 1, avg_latency: 50 },
        ],
        summary: { total_tokens: 1681, prompt_tokens: 1120, completion_tokens: 561, request_count: 6 },
      });
    });

    it('computes usage per local day in Asia/Shanghai, with exact day boundaries', async () => {
      expect(await usageStats(store, q({ timezone: 'Asia/Shanghai' }))).toEqual({
        object: 'usage',
        data: [
          { date: '2024-03-01', total_tokens: 152, prompt_tokens: 101, completion_tokens: 51, request_count: 2, avg_latency: 105 },
          { date: '2024-03-02', total_tokens: 1519, prompt_tokens: 1012, completion_tokens: 507, request_count: 3, avg_latency: 140 },
        ],
        summary: { total_tokens: 1671, prompt_tokens: 1113, completion_tokens: 558, request_count: 5 },
      });
      const oneDay = await usageStats(store, q({ timezone: 'Asia/Shanghai', start_date: '2024-03-02', end_date: '2024-03-02' }));
      expect(oneDay.summary.request_count).toBe(3);
    });

    it('groups by local month', async () => {
      const usage = await usageStats(store, q({ timezone: 'Asia/Shanghai', end_date: '2024-04-01', group_by: 'month' }));
      expect(usage.data.map((d) => [(d as { date: string }).date, d.total_tokens, d.request_count])).toEqual([
        ['2024-03', 1671, 5],
        ['2024-04', 10, 1],
      ]);
      const cost = await costStats(store, q({ group_by: 'month' }));
      expect(cost.data).toEqual([{ date: '2024-03', input_cost: 1.51, output_cost: 2.82, total_cost: 4.33 }]);
    });

    it('computes exact cost per day, billed calls only', async () => {
      expect(await costStats(store, q({ currency: 'CNY' }))).toEqual({
        object: 'cost',
        currency: 'CNY',
        data: [
          { date: '2024-03-01', input_cost: 0.21, output_cost: 0.42, total_cost: 0.63 },
          { date: '2024-03-02', input_cost: 1, output_cost: 2, total_cost: 3 },
          { date: '2024-03-31', input_cost: 0.3, output_cost: 0.4, total_cost: 0.7 },
        ],
        summary: { total_input_cost: 1.51, total_output_cost: 2.82, total_cost: 4.33 },
      });
    });

    it('groups usage and cost by model with a model key', async () => {
      const usage = await usageStats(store, q({ group_by: 'model' }));
      expect(usage.data).toEqual([
        { model: 'm1', total_tokens: 1656, prompt_tokens: 1103, completion_tokens: 553, request_count: 4, avg_latency: 133 },
        { model: 'm2', total_tokens: 25, prompt_tokens: 17, completion_tokens: 8, request_count: 2, avg_latency: 75 },
      ]);
      const cost = await costStats(store, q({ group_by: 'model' }));
      expect(cost.data).toEqual([
        { model: 'm1', input_cost: 1.2, output_cost: 2.4, total_cost: 3.6 },
        { model: 'm2', input_cost: 0.31, output_cost: 0.42, total_cost: 0.73 },
      ]);
    });

    it('gives per-model shares that sum to 100', async () => {
      const models = await modelStats(store, q({}));
      expect(models).toEqual({
        object: 'model_usage',
        data: [
          { model: 'm1', request_count: 4, total_tokens: 1656, cost: 3.6, percentage: 98.51 },
          { model: 'm2', request_count: 2, total_tokens: 25, cost: 0.73, percentage: 1.49 },
        ],
      });
      expect(models.data.reduce((s, m) => s + m.percentage, 0)).toBeCloseTo(100, 6);
      expect(await modelStats(store, q({ start_date: '2023-01-01', end_date: '2023-01-02' }))).toEqual({ object: 'model_usage', data: [] });
    });

    it('filters statistics by api key and by account', async () => {
      const k2 = await usageStats(store, q({ api_key_id: 'k2' }));
      expect(k2.summary).toEqual({ total_tokens: 19, prompt_tokens: 12, completion_tokens: 7, request_count: 2 });
      const a2 = await costStats(store, q({ account_id: 'a2' }));
      expect(a2.summary).toEqual({ total_input_cost: 0.3, total_output_cost: 0.4, total_cost: 0.7 });
      const none = await usageStats(store, q({ account_id: 'a2', api_key_id: 'k1' }));
      expect(none).toEqual({ object: 'usage', data: [], summary: { total_tokens: 0, prompt_tokens: 0, completion_tokens: 0, request_count: 0 } });
    });

    it('exports a statistics result as CSV with its data fields as header', async () => {
      const csv = await exportStatistics(store, 'cost', q({}));
      expect(csv.body).toBe(
        'date,input_cost,output_cost,total_cost\r\n2024-03-01,0.21,0.42,0.63\r\n2024-03-02,1,2,3\r\n2024-03-31,0.3,0.4,0.7\r\n',
      );
      const models = await exportStatistics(store, 'models', q({}));
      expect(models.body.split('\r\n')[0]).toBe('model,request_count,total_tokens,cost,percentage');
    });

    it('answers ping and names its kind', async () => {
      expect(store.kind).toBe(kind);
      expect(await store.ping()).toBeGreaterThanOrEqual(0);
    });
  });
}
