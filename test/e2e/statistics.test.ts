/**
 * Statistics through the HTTP API: a known set of calls (written into the gateway's own log
 * store at chosen instants around UTC and Asia/Shanghai day boundaries) gives figures computed
 * here by hand, in both timezones; the CSV export parses back to the JSON figures; real calls
 * sum to what the log holds; scoping, scopes and every parameter error.
 */
import { describe, expect, it } from 'vitest';
import type { LogService } from '../../src/features/logs/service.ts';
import { makeRecord } from '../../src/features/logs/test-records.ts';
import { DEMO_KEY, MASTER_KEY, useGateway } from '../_setup.ts';
import { parseCsv } from '../csv-parse.ts';

const OTHER_KEY = 'sk-bf-test-other-1111111111111111111111111111';
const WEIRD = 'weird, "model"';
const state = useGateway('logs.yaml');

const demo = { account_id: 'demo', api_key_id: 'demo-key', api_key_name: 'Demo key' };
const RECORDS = [
  makeRecord({ id: 'log_a', ...demo, created_at: Date.parse('2025-03-10T15:30:00Z'), model: 'gpt-4o-mini', request_tokens: 100, response_tokens: 50, latency_ms: 100, input_cost: '0.1', output_cost: '0.1' }),
  makeRecord({ id: 'log_b', ...demo, created_at: Date.parse('2025-03-10T16:30:00Z'), model: 'gpt-4o-mini', request_tokens: 200, response_tokens: 100, latency_ms: 300, input_cost: '0.2', output_cost: '0.2' }),
  makeRecord({ id: 'log_c', ...demo, created_at: Date.parse('2025-03-11T02:00:00Z'), model: 'gpt-4o', request_tokens: 10, response_tokens: 20, latency_ms: 50, input_cost: '0.05', output_cost: '0.3' }),
  makeRecord({ id: 'log_d', ...demo, created_at: Date.parse('2025-03-11T23:59:00Z'), model: WEIRD, request_tokens: 1000, response_tokens: 0, latency_ms: 1000, status: 'error', http_status: 502, billed: false }),
  makeRecord({ id: 'log_e', ...demo, created_at: Date.parse('2025-03-31T23:00:00Z'), model: 'gpt-4o-mini', request_tokens: 1, response_tokens: 2, latency_ms: 10, input_cost: '0.000001', output_cost: '0.000002' }),
  makeRecord({ id: 'log_f', account_id: 'other', api_key_id: 'other-key', api_key_name: 'Other key', created_at: Date.parse('2025-03-10T12:00:00Z'), model: 'gpt-4o', request_tokens: 7, response_tokens: 7, latency_ms: 70, input_cost: '1', output_cost: '1' }),
];

async function get(path: string, key = DEMO_KEY) {
  const res = await fetch(`${state.gw.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, body, headers: res.headers };
}

async function putSettings(body: unknown, key = DEMO_KEY) {
  const res = await fetch(`${state.gw.url}/v1/settings`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
}

const usageRow = (date: string, prompt: number, completion: number, requests: number, avg: number) => ({
  date, total_tokens: prompt + completion, prompt_tokens: prompt, completion_tokens: completion, request_count: requests, avg_latency: avg,
});

describe('statistics', () => {
  it('loads the known call set', async () => {
    const logs = state.gw.gateway.runtime.services.logs as LogService;
    await logs.store.insertBatch(RECORDS);
  });

  it('usage and cost per UTC day equal the hand-computed sums', async () => {
    const usage = await get('/v1/statistics/usage?start_date=2025-03-10&end_date=2025-03-31');
    expect(usage.status).toBe(200);
    expect(usage.body).toEqual({
      object: 'usage',
      data: [usageRow('2025-03-10', 300, 150, 2, 200), usageRow('2025-03-11', 1010, 20, 2, 525), usageRow('2025-03-31', 1, 2, 1, 10)],
      summary: { total_tokens: 1483, prompt_tokens: 1311, completion_tokens: 172, request_count: 5 },
    });
    const cost = await get('/v1/statistics/cost?start_date=2025-03-10&end_date=2025-03-31');
    expect(cost.body).toEqual({
      object: 'cost',
      currency: 'CNY',
      data: [
        { date: '2025-03-10', input_cost: 0.3, output_cost: 0.3, total_cost: 0.6 },
        { date: '2025-03-11', input_cost: 0.05, output_cost: 0.3, total_cost: 0.35 },
        { date: '2025-03-31', input_cost: 0.000001, output_cost: 0.000002, total_cost: 0.000003 },
      ],
      summary: { total_input_cost: 0.350001, total_output_cost: 0.600002, total_cost: 0.950003 },
    });
  });

  it('per-model shares sum to 100', async () => {
    const models = await get('/v1/statistics/models?start_date=2025-03-10&end_date=2025-03-31');
    expect(models.body).toEqual({
      object: 'model_usage',
      data: [
        { model: WEIRD, request_count: 1, total_tokens: 1000, cost: 0, percentage: 67.43 },
        { model: 'gpt-4o-mini', request_count: 3, total_tokens: 453, cost: 0.600003, percentage: 30.55 },
        { model: 'gpt-4o', request_count: 1, total_tokens: 30, cost: 0.35, percentage: 2.02 },
      ],
    });
    const total = models.body.data.reduce((s: number, m: any) => s + m.percentage, 0);
    expect(total).toBeCloseTo(100, 6);
  });

  it('days and months follow the account timezone (Asia/Shanghai) and the cost its currency, converted at the configured rate', async () => {
    await putSettings({ account: { timezone: 'Asia/Shanghai', currency: 'USD' } });
    const usage = await get('/v1/statistics/usage?start_date=2025-03-10&end_date=2025-04-01');
    expect(usage.body.data).toEqual([
      usageRow('2025-03-10', 100, 50, 1, 100),
      usageRow('2025-03-11', 210, 120, 2, 175),
      usageRow('2025-03-12', 1000, 0, 1, 1000),
      usageRow('2025-04-01', 1, 2, 1, 10),
    ]);
    const months = await get('/v1/statistics/usage?start_date=2025-03-01&end_date=2025-04-30&group_by=month');
    expect(months.body.data).toEqual([usageRow('2025-03', 1310, 170, 4, 363), usageRow('2025-04', 1, 2, 1, 10)]);
    const cost = await get('/v1/statistics/cost?start_date=2025-03-10&end_date=2025-04-01');
    // The ledger is in CNY (the prices' currency); USD is shown at billing.exchange_rates.USD = 0.14.
    expect(cost.body.currency).toBe('USD');
    expect(cost.body.data).toEqual([
      { date: '2025-03-10', input_cost: 0.014, output_cost: 0.014, total_cost: 0.028 },
      { date: '2025-03-11', input_cost: 0.035, output_cost: 0.07, total_cost: 0.105 },
      { date: '2025-03-12', input_cost: 0, output_cost: 0, total_cost: 0 },
      { date: '2025-04-01', input_cost: 0, output_cost: 0, total_cost: 0 },
    ]);
    const models = await get('/v1/statistics/models?start_date=2025-03-10&end_date=2025-03-10');
    expect(models.body.data).toEqual([expect.objectContaining({ model: 'gpt-4o-mini', cost: 0.028 })]);
    // One local day only: 2025-03-11 in Shanghai is B and C.
    const oneDay = await get('/v1/statistics/usage?start_date=2025-03-11&end_date=2025-03-11');
    expect(oneDay.body.summary).toEqual({ total_tokens: 330, prompt_tokens: 210, completion_tokens: 120, request_count: 2 });
    await putSettings({ account: { timezone: 'UTC', currency: 'CNY' } });
  });

  it('admins see every account; api_key_id narrows; members never see others', async () => {
    const all = await get('/v1/statistics/usage?start_date=2025-03-10&end_date=2025-03-10', MASTER_KEY);
    expect(all.body.summary).toEqual({ total_tokens: 464, prompt_tokens: 307, completion_tokens: 157, request_count: 3 });
    const otherOnly = await get('/v1/statistics/usage?start_date=2025-03-10&end_date=2025-03-31&api_key_id=other-key', MASTER_KEY);
    expect(otherOnly.body.summary.request_count).toBe(1);
    const sneaky = await get('/v1/statistics/usage?start_date=2025-03-10&end_date=2025-03-31&api_key_id=other-key', DEMO_KEY);
    expect(sneaky.body.summary.request_count).toBe(0);
    const own = await get('/v1/statistics/usage?start_date=2025-03-10&end_date=2025-03-31', OTHER_KEY);
    expect(own.body.summary).toEqual({ total_tokens: 14, prompt_tokens: 7, completion_tokens: 7, request_count: 1 });
  });

  it('exports CSV that parses back to the JSON figures, and JSON', async () => {
    for (const [type, path, groupBy] of [
      ['usage', 'usage', 'day'],
      ['cost', 'cost', 'day'],
      ['models', 'models', 'day'],
      ['usage', 'usage', 'model'],
    ] as const) {
      const q = `start_date=2025-03-10&end_date=2025-03-31&group_by=${groupBy}`;
      const csv = await get(`/v1/statistics/export?format=csv&type=${type}&${q}`);
      expect(csv.status).toBe(200);
      expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
      expect(csv.headers.get('content-disposition')).toBe(`attachment; filename="${type}-2025-03-10-2025-03-31.csv"`);
      const [header, ...rows] = parseCsv(csv.body as string);
      const json = (await get(`/v1/statistics/${path}?${q}`)).body;
      expect(header).toEqual(Object.keys(json.data[0]));
      const parsed = rows.map((r) => Object.fromEntries(header!.map((h, i) => [h, h === 'date' || h === 'model' ? r[i] : Number(r[i])])));
      expect(parsed).toEqual(json.data);
    }
    // The weird model name survives quoting.
    const models = parseCsv((await get('/v1/statistics/export?type=models&start_date=2025-03-10&end_date=2025-03-31')).body);
    expect(models[1]![0]).toBe(WEIRD);
    const asJson = await get('/v1/statistics/export?format=json&type=cost&start_date=2025-03-10&end_date=2025-03-31');
    expect(asJson.headers.get('content-disposition')).toContain('cost-2025-03-10-2025-03-31.json');
    expect(asJson.body.object).toBe('cost');
    expect(asJson.body.summary.total_cost).toBe(0.950003);
  });

  it('sums of real calls equal what the logs hold', async () => {
    for (const content of ['one', 'two words', 'three little words']) {
      const res = await fetch(`${state.gw.url}/api/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${OTHER_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content }] }),
      });
      expect(res.status).toBe(200);
    }
    const logs = state.gw.gateway.runtime.services.logs as LogService;
    await logs.queue.flush();
    const today = new Date().toISOString().slice(0, 10);
    const list = (await get(`/v1/admin/logs?api_key_id=other-key&start_time=${today}T00:00:00Z&page_size=100`, MASTER_KEY)).body;
    const usage = (await get(`/v1/statistics/usage?start_date=${today}&end_date=${today}`, OTHER_KEY)).body;
    const prompt = list.data.reduce((s: number, l: any) => s + l.request_tokens, 0);
    const completion = list.data.reduce((s: number, l: any) => s + l.response_tokens, 0);
    expect(usage.summary).toEqual({ total_tokens: prompt + completion, prompt_tokens: prompt, completion_tokens: completion, request_count: list.meta.total });
    // gpt-4o: 5 and 15 per thousand tokens.
    const cost = (await get(`/v1/statistics/cost?start_date=${today}&end_date=${today}`, OTHER_KEY)).body;
    expect(cost.summary.total_cost).toBeCloseTo((prompt * 5 + completion * 15) / 1000, 9);
  });

  it('refuses bad dates, reversed ranges, unknown group_by, format and type', async () => {
    for (const [query, param] of [
      ['start_date=2025-02-30&end_date=2025-03-01', 'start_date'],
      ['start_date=yesterday', 'start_date'],
      ['end_date=2025/03/01', 'end_date'],
      ['start_date=2025-03-02&end_date=2025-03-01', 'start_date'],
      ['group_by=week', 'group_by'],
    ]) {
      const res = await get(`/v1/statistics/usage?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error.param, query).toBe(param);
    }
    expect((await get('/v1/statistics/export?format=xml')).status).toBe(400);
    expect((await get('/v1/statistics/export?type=keys')).body.error.param).toBe('type');
    expect((await get('/v1/statistics/usage', 'sk-bf-nope')).status).toBe(401);
  });

  it('OAuth tokens need read:api for usage/models and read:billing for cost/export', async () => {
    const runtime = state.gw.gateway.runtime;
    const previous = runtime.services.tokens;
    runtime.services.tokens = {
      async verify(token: string) {
        if (token === 'tok-api') return { kind: 'oauth', accountId: 'demo', role: 'member', scopes: new Set(['read:api']) };
        if (token === 'tok-billing') return { kind: 'oauth', accountId: 'demo', role: 'member', scopes: new Set(['read:billing']) };
        return null;
      },
    };
    try {
      expect((await get('/v1/statistics/usage', 'tok-api')).status).toBe(200);
      expect((await get('/v1/statistics/models', 'tok-api')).status).toBe(200);
      const refused = await get('/v1/statistics/cost', 'tok-api');
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('insufficient_scope');
      expect((await get('/v1/statistics/export', 'tok-api')).status).toBe(403);
      expect((await get('/v1/statistics/cost', 'tok-billing')).status).toBe(200);
      expect((await get('/v1/statistics/export', 'tok-billing')).status).toBe(200);
      expect((await get('/v1/statistics/usage', 'tok-billing')).status).toBe(403);
    } finally {
      runtime.services.tokens = previous;
    }
  });
});
