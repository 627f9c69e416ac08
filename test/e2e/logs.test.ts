/**
 * Call logs end to end: every call that passed auth is written (off the request path) and
 * readable through /v1/admin/logs with every filter of spec 4.5, paged; the detail record
 * carries bodies only while the account's request_logging is on.
 */
import { describe, expect, it } from 'vitest';
import { DEMO_KEY, MASTER_KEY, useGateway, waitForLogRecord } from '../_setup.ts';

const OTHER_KEY = 'sk-bf-test-other-1111111111111111111111111111';
const state = useGateway('logs.yaml');

async function chat(key: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return fetch(`${state.gw.url}/api/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ messages: [{ role: 'user', content: 'hello there' }], ...body }),
  });
}

async function admin(path: string, key = MASTER_KEY) {
  const res = await fetch(`${state.gw.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, body: (await res.json()) as any };
}

/** Waits until the log holds `count` rows (the queue flushes every 20 ms here). */
async function waitForLogs(count: number, query = '') {
  for (let i = 0; i < 100; i++) {
    const { body } = await admin(`/v1/admin/logs?page_size=1${query}`);
    if (body.meta?.total >= count) return body.meta.total as number;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`expected ${count} log rows`);
}

describe('call logs', () => {
  let firstId = '';

  it('records successes and failures with the list fields, newest first', async () => {
    expect((await chat(DEMO_KEY, { model: 'gpt-4o-mini' }, { 'user-agent': 'logs-test/1' })).status).toBe(200);
    expect((await chat(DEMO_KEY, { model: 'mock/fail-400' })).status).toBe(400);
    expect((await chat(OTHER_KEY, { model: 'gpt-4o' })).status).toBe(200);
    // Refused before auth: never logged (nothing to attribute).
    expect((await chat('sk-bf-wrong', { model: 'gpt-4o' })).status).toBe(401);
    await waitForLogs(3);
    const { status, body } = await admin('/v1/admin/logs');
    expect(status).toBe(200);
    expect(body.object).toBe('list');
    expect(body.meta).toEqual({ total: 3, page: 1, page_size: 20, total_pages: 1 });
    expect(body.data.map((l: any) => l.model)).toEqual(['gpt-4o', 'mock/fail-400', 'gpt-4o-mini']);
    const first = body.data[2];
    firstId = first.id;
    expect(first).toMatchObject({
      api_key_id: 'demo-key',
      api_key_name: 'Demo key',
      request_tokens: 2,
      response_tokens: 3,
      status: 'success',
      ip: '127.0.0.1',
    });
    expect(typeof first.latency).toBe('number');
    expect(new Date(first.created_at).toISOString()).toBe(first.created_at);
    expect(body.data[1]).toMatchObject({ status: 'error', request_tokens: 0, response_tokens: 0 });
  });

  it('filters by key, model, status and time range', async () => {
    const byKey = await admin('/v1/admin/logs?api_key_id=other-key');
    expect(byKey.body.data.map((l: any) => l.api_key_id)).toEqual(['other-key']);
    const byModel = await admin('/v1/admin/logs?model=gpt-4o-mini');
    expect(byModel.body.meta.total).toBe(1);
    const errors = await admin('/v1/admin/logs?status=error');
    expect(errors.body.data.map((l: any) => l.model)).toEqual(['mock/fail-400']);
    const successes = await admin('/v1/admin/logs?status=success&api_key_id=demo-key');
    expect(successes.body.meta.total).toBe(1);
    const future = new Date(Date.now() + 60_000).toISOString();
    expect((await admin(`/v1/admin/logs?start_time=${future}`)).body.meta.total).toBe(0);
    const past = new Date(Date.now() - 60_000).toISOString();
    expect((await admin(`/v1/admin/logs?start_time=${past}&end_time=${future}`)).body.meta.total).toBe(3);
    expect((await admin(`/v1/admin/logs?end_time=${past}`)).body.meta.total).toBe(0);
  });

  it('pages: page_size 100 is allowed, 101 is 400, a page past the end is empty with the total', async () => {
    const p2 = await admin('/v1/admin/logs?page=2&page_size=2');
    expect(p2.body.meta).toEqual({ total: 3, page: 2, page_size: 2, total_pages: 2 });
    expect(p2.body.data).toHaveLength(1);
    const beyond = await admin('/v1/admin/logs?page=9&page_size=2');
    expect(beyond.status).toBe(200);
    expect(beyond.body.data).toEqual([]);
    expect(beyond.body.meta).toEqual({ total: 3, page: 9, page_size: 2, total_pages: 2 });
    expect((await admin('/v1/admin/logs?page_size=100')).body.meta.page_size).toBe(100);
    const tooBig = await admin('/v1/admin/logs?page_size=101');
    expect(tooBig.status).toBe(400);
    expect(tooBig.body.error.param).toBe('page_size');
    for (const bad of ['page=0', 'page=-1', 'page=abc', 'page_size=0', 'status=ok', 'start_time=yesterday', 'end_time=2025-13-45T00:00:00Z']) {
      const res = await admin(`/v1/admin/logs?${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.body.error.param, bad).toBe(bad.split('=')[0]);
    }
  });

  it('is admin-only', async () => {
    const res = await admin('/v1/admin/logs', DEMO_KEY);
    expect(res.status).toBe(403);
  });

  it('answers the detail record, 404 for an unknown id', async () => {
    const { status, body } = await admin(`/v1/admin/logs/${firstId}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      id: firstId,
      api_key_id: 'demo-key',
      model: 'gpt-4o-mini',
      status: 'success',
      error_code: null,
      error_message: null,
      user_agent: 'logs-test/1',
      account_id: 'demo',
      group_id: 'default',
      provider: 'mock',
      stream: false,
      cache_hit: false,
      billed: true,
    });
    expect(body.request.messages).toEqual([{ role: 'user', content: 'hello there' }]);
    expect(body.response.usage).toEqual({ prompt_tokens: 2, completion_tokens: 3, total_tokens: 5 });
    expect(body.response.choices[0].message.content).toBe('Echo: hello there');
    // Prices of the model at call time: 2 × 1/1000 + 3 × 2/1000.
    expect(body.cost).toEqual({ input: 0.002, output: 0.006, total: 0.008, currency: 'CNY' });
    expect(body.attempts).toEqual([expect.objectContaining({ model: 'gpt-4o-mini', provider: 'mock', status: 200 })]);
    const failed = (await admin('/v1/admin/logs?status=error')).body.data[0];
    const detail = (await admin(`/v1/admin/logs/${failed.id}`)).body;
    expect(detail.error_code).not.toBeNull();
    expect(detail.error_message).toBeTruthy();
    expect(detail.billed).toBe(false);
    expect(detail.cost.total).toBe(0);
    const missing = await admin('/v1/admin/logs/log_nope');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('log_not_found');
  });

  it('stores no bodies while the account has request_logging off', async () => {
    const put = await fetch(`${state.gw.url}/v1/settings`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ security: { request_logging: false } }),
    });
    expect(put.status).toBe(200);
    expect((await chat(DEMO_KEY, { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'secret words' }] })).status).toBe(200);
    await waitForLogs(4);
    const newest = (await admin('/v1/admin/logs?api_key_id=demo-key&page_size=1')).body.data[0];
    const detail = (await admin(`/v1/admin/logs/${newest.id}`)).body;
    expect(detail.request).toBeNull();
    expect(detail.response).toBeNull();
    expect(detail.request_tokens).toBe(2);
    // Other accounts keep their bodies.
    expect((await chat(OTHER_KEY, { model: 'gpt-4o-mini' })).status).toBe(200);
    await waitForLogs(5);
    const otherNewest = (await admin('/v1/admin/logs?api_key_id=other-key&page_size=1')).body.data[0];
    expect((await admin(`/v1/admin/logs/${otherNewest.id}`)).body.request).not.toBeNull();
  });

  it('bills a stream the client abandoned for the text it received, never zero', async () => {
    state.mock.setBehavior('slow-50', { chunkDelayMs: 50, reply: 'one two three four five six seven eight nine ten eleven twelve' });
    const controller = new AbortController();
    const res = await fetch(`${state.gw.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${OTHER_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock/slow-50', stream: true, messages: [{ role: 'user', content: 'count please' }] }),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('three')) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    await waitForLogs(6);
    const newest = (await admin('/v1/admin/logs?api_key_id=other-key&page_size=1')).body.data[0];
    const detail = (await admin(`/v1/admin/logs/${newest.id}`)).body;
    expect(detail.stream).toBe(true);
    expect(detail.status).toBe('error');
    expect(detail.response_tokens).toBeGreaterThan(0);
    expect(detail.response_tokens).toBeLessThan(12);
    expect(detail.request_tokens).toBeGreaterThan(0);
    expect(detail.billed).toBe(true);
  });

  it('bills a stream the upstream cut midway for what was streamed, not zero and not a whole answer', async () => {
    state.mock.setBehavior('cut', { cutAfterChunks: 3, reply: 'alpha beta gamma delta epsilon zeta eta theta' });
    const res = await chat(OTHER_KEY, { model: 'mock/cut', stream: true });
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(body).toContain('"error"');
    expect(body).not.toContain('[DONE]');
    await waitForLogs(7);
    const newest = (await admin('/v1/admin/logs?api_key_id=other-key&page_size=1')).body.data[0];
    const detail = (await admin(`/v1/admin/logs/${newest.id}`)).body;
    expect(detail).toMatchObject({ model: 'mock/cut', status: 'error', stream: true, billed: true, response_tokens: 3 });
    expect(detail.request_tokens).toBeGreaterThan(0);
    expect(detail.error_code).toBeTruthy();
  });

  it('logs a streamed tool call whole, in the shape of a non-streamed answer', async () => {
    const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } }];
    const streamed = await chat(OTHER_KEY, { model: 'gpt-4o-mini', stream: true, tools, messages: [{ role: 'user', content: 'Paris' }] });
    expect(await streamed.text()).toContain('[DONE]');
    const plain = await chat(OTHER_KEY, { model: 'gpt-4o-mini', tools, messages: [{ role: 'user', content: 'Paris' }] });
    const whole = (await plain.json()) as any;
    await waitForLogs(9);
    const [newest, previous] = (await admin('/v1/admin/logs?api_key_id=other-key&page_size=2')).body.data;
    const logged = (await admin(`/v1/admin/logs/${previous.id}`)).body;
    expect(logged.stream).toBe(true);
    const call = { id: expect.stringMatching(/^call_mock/), type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } };
    expect(logged.response).toEqual({
      id: expect.any(String),
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'gpt-4o-mini',
      choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [call] }, finish_reason: 'tool_calls' }],
      usage: { prompt_tokens: 1, completion_tokens: 5, total_tokens: 6 },
    });
    // The same fields a non-streamed call logs.
    const unstreamed = (await admin(`/v1/admin/logs/${newest.id}`)).body.response;
    expect(unstreamed).toEqual(whole);
    expect(unstreamed.choices[0]).toMatchObject({ index: 0, message: { role: 'assistant', content: null, tool_calls: [call] }, finish_reason: 'tool_calls' });
  });

  it('bills a stream of tool calls the upstream cut before its usage, never zero', async () => {
    state.mock.setBehavior('cut', { cutBeforeFinish: true });
    const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } }];
    const res = await chat(OTHER_KEY, { model: 'mock/cut', stream: true, tools, messages: [{ role: 'user', content: 'Paris' }] });
    const body = await res.text();
    expect(body).toContain('get_weather');
    expect(body).not.toContain('[DONE]');
    const detail = await waitForLogRecord(state.gw, res.headers.get('x-request-id')!);
    expect(detail).toMatchObject({ model: 'mock/cut', status: 'error', stream: true, billed: true });
    expect(detail.response_tokens).toBeGreaterThan(0);
    expect(detail.request_tokens).toBeGreaterThan(0);
  });
});
