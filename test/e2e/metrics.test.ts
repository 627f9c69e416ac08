/**
 * GET /metrics (Prometheus text): requests by model, provider, status and outcome (a stream that
 * breaks after its 200 is a server error), latency and TTFT histograms, tokens and cost, upstream
 * errors and fallbacks, rate-limit rejections, the log queue, the process and Node.js runtime;
 * bearer-token access, per-gateway registries, and `enabled: false` after a reload.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { DEMO_KEY, useGateway } from '../_setup.ts';
import { sample } from '../prometheus-sample.ts';

const OTHER_KEY = 'sk-bf-test-other-1111111111111111111111111111';
const state = useGateway('metrics.yaml');
// No `metrics.token` in logs.yaml: the token comes from GATEWAY_METRICS_TOKEN.
const second = useGateway('logs.yaml', { GATEWAY_METRICS_TOKEN: 'env-secret' });

async function scrape(url: string, token?: string) {
  const res = await fetch(`${url}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

async function chat(url: string, key: string, body: Record<string, unknown>) {
  const res = await fetch(`${url}/api/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ role: 'user', content: 'hello there' }], ...body }),
  });
  await res.text();
  return res.status;
}

const settle = () => new Promise((r) => setTimeout(r, 50)); // observers run after the last byte

describe('metrics', () => {
  it('needs the configured bearer token', async () => {
    expect((await scrape(state.gw.url)).status).toBe(401);
    expect((await scrape(state.gw.url, 'wrong')).status).toBe(401);
    const ok = await scrape(state.gw.url, 'metrics-secret');
    expect(ok.status).toBe(200);
    expect(ok.type).toMatch(/^text\/plain/);
    expect(ok.text).toContain('# TYPE gateway_requests_total counter');
    // GATEWAY_METRICS_TOKEN when the config sets none.
    expect((await scrape(second.gw.url)).status).toBe(401);
    expect((await scrape(second.gw.url, 'env-secret')).status).toBe(200);
  });

  it('counts requests, latency, time to first token, tokens and cost', async () => {
    expect(await chat(state.gw.url, DEMO_KEY, { model: 'gpt-4o-mini' })).toBe(200);
    expect(await chat(state.gw.url, DEMO_KEY, { model: 'gpt-4o-mini' })).toBe(200);
    expect(await chat(state.gw.url, DEMO_KEY, { model: 'gpt-4o-mini', stream: true })).toBe(200);
    expect(await chat(state.gw.url, DEMO_KEY, { model: 'nope' })).toBe(404);
    await settle();
    const { text } = await scrape(state.gw.url, 'metrics-secret');
    expect(sample(text, 'gateway_requests_total', { model: 'gpt-4o-mini', provider: 'mock', endpoint: 'chat', status: '200', outcome: 'ok' })).toBe(3);
    // Unknown names share one label value: clients cannot mint time series.
    expect(sample(text, 'gateway_requests_total', { model: '(unknown)', provider: '', endpoint: 'chat', status: '404', outcome: 'client_error' })).toBe(1);
    expect(text).not.toContain('model="nope"');
    // provider/model names: those the provider lists are kept, any other shares `provider/(other)`.
    // (This provider lists its models: an unlisted name is refused, 404, but still counted.)
    for (const model of ['mock/random-1', 'mock/random-2']) expect(await chat(state.gw.url, DEMO_KEY, { model })).toBe(404);
    expect(await chat(state.gw.url, DEMO_KEY, { model: 'mock/gpt-4o' })).toBe(200);
    await settle();
    const after = (await scrape(state.gw.url, 'metrics-secret')).text;
    expect(sample(after, 'gateway_requests_total', { model: 'mock/(other)', provider: '', endpoint: 'chat', status: '404', outcome: 'client_error' })).toBe(2);
    expect(sample(after, 'gateway_requests_total', { model: 'mock/gpt-4o', provider: 'mock', endpoint: 'chat', status: '200', outcome: 'ok' })).toBe(1);
    expect(after).not.toContain('random-1');
    expect(sample(text, 'gateway_request_duration_seconds_count', { model: 'gpt-4o-mini', provider: 'mock', endpoint: 'chat' })).toBe(3);
    expect(sample(text, 'gateway_time_to_first_token_seconds_count', { model: 'gpt-4o-mini', provider: 'mock', endpoint: 'chat' })).toBe(1);
    // Mock usage: 2 prompt tokens ("hello there"), 3 completion tokens ("Echo: hello there").
    expect(sample(text, 'gateway_tokens_total', { model: 'gpt-4o-mini', provider: 'mock', kind: 'prompt' })).toBe(6);
    expect(sample(text, 'gateway_tokens_total', { model: 'gpt-4o-mini', provider: 'mock', kind: 'completion' })).toBe(9);
    // 3 × (2 × 1 + 3 × 2) / 1000.
    expect(sample(text, 'gateway_cost_total', { model: 'gpt-4o-mini', provider: 'mock', currency: 'CNY' })).toBeCloseTo(0.024, 9);
    expect(text).toMatch(/^gateway_log_queue_depth \d+$/m);
    // Dropped records only ever add up: a counter, which a worker group keeps when a worker exits.
    expect(text).toContain('# TYPE gateway_log_queue_dropped_total counter\ngateway_log_queue_dropped_total 0\n');
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
  });

  it('labels each request with the interface it came in through: Messages and generateContent apart from chat', async () => {
    const messages = (headers: Record<string, string>) =>
      fetch(`${state.gw.url}/api/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', ...headers },
        body: JSON.stringify({ model: 'gpt-4o', max_tokens: 16, messages: [{ role: 'user', content: 'hello there' }] }),
      }).then(async (r) => (await r.text(), r.status));
    const generate = (method: string) =>
      fetch(`${state.gw.url}/api/v1beta/models/gpt-4o:${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': DEMO_KEY },
        body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hello there' }] }] }),
      }).then(async (r) => (await r.text(), r.status));
    expect(await messages({ 'x-api-key': DEMO_KEY })).toBe(200);
    expect(await messages({})).toBe(401);
    expect(await generate('generateContent')).toBe(200);
    expect(await generate('streamGenerateContent?alt=sse')).toBe(200);
    await settle();
    const { text } = await scrape(state.gw.url, 'metrics-secret');
    const served = { model: 'gpt-4o', provider: 'mock' };
    expect(sample(text, 'gateway_requests_total', { ...served, endpoint: 'messages', status: '200', outcome: 'ok' })).toBe(1);
    expect(sample(text, 'gateway_requests_total', { ...served, endpoint: 'generate_content', status: '200', outcome: 'ok' })).toBe(2);
    expect(sample(text, 'gateway_requests_total', { model: '', provider: '', endpoint: 'messages', status: '401', outcome: 'client_error' })).toBe(1);
    expect(sample(text, 'gateway_request_duration_seconds_count', { ...served, endpoint: 'messages' })).toBe(1);
    expect(sample(text, 'gateway_request_duration_seconds_count', { ...served, endpoint: 'generate_content' })).toBe(2);
    expect(sample(text, 'gateway_time_to_first_token_seconds_count', { ...served, endpoint: 'generate_content' })).toBe(1);
    // Tokens and cost stay by model and provider: the three calls add up with the chat ones.
    expect(sample(text, 'gateway_tokens_total', { ...served, kind: 'prompt' })).toBeGreaterThan(0);
  });

  it('counts a stream that breaks after its 200 as a server error, keeping the status it was sent with', async () => {
    expect(await chat(state.gw.url, DEMO_KEY, { model: 'mock/cut', stream: true })).toBe(200);
    await settle();
    const { text } = await scrape(state.gw.url, 'metrics-secret');
    expect(sample(text, 'gateway_requests_total', { model: 'mock/cut', provider: 'mock', endpoint: 'chat', status: '200', outcome: 'server_error' })).toBe(1);
    expect(sample(text, 'gateway_requests_total', { model: 'mock/cut', provider: 'mock', endpoint: 'chat', status: '200', outcome: 'ok' })).toBe(0);
  });

  it('counts upstream errors and fallbacks', async () => {
    expect(await chat(state.gw.url, DEMO_KEY, { model: 'mock/fail-500', fallbacks: ['gpt-4o-mini'] })).toBe(200);
    await settle();
    const { text } = await scrape(state.gw.url, 'metrics-secret');
    expect(sample(text, 'gateway_upstream_errors_total', { provider: 'mock', status: '500' })).toBe(1);
    expect(sample(text, 'gateway_fallbacks_total', { model: 'gpt-4o-mini' })).toBe(1);
  });

  it('counts requests refused before the pipeline: no key, a body that is not JSON, one that is not valid', async () => {
    const post = (headers: Record<string, string>, body: string) =>
      fetch(`${state.gw.url}/api/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body }).then((r) => r.status);
    const key = { authorization: `Bearer ${DEMO_KEY}` };
    expect(await post({}, '{}')).toBe(401);
    expect(await post(key, '{not json')).toBe(400);
    expect(await post(key, JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], temperature: 9 }))).toBe(400);
    const { text } = await scrape(state.gw.url, 'metrics-secret');
    expect(sample(text, 'gateway_requests_total', { model: '', provider: '', endpoint: 'chat', status: '401', outcome: 'client_error' })).toBe(1);
    expect(sample(text, 'gateway_requests_total', { model: '', provider: '', endpoint: 'chat', status: '400', outcome: 'client_error' })).toBe(2);
  });

  it('counts rate-limit rejections', async () => {
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push(await chat(state.gw.url, OTHER_KEY, { model: 'gpt-4o-mini' }));
    expect(statuses).toEqual([200, 200, 429]);
    await settle();
    const { text } = await scrape(state.gw.url, 'metrics-secret');
    expect(sample(text, 'gateway_rejections_total', { reason: 'rate_limit' })).toBe(1);
    expect(sample(text, 'gateway_requests_total', { model: 'gpt-4o-mini', provider: '', endpoint: 'chat', status: '429', outcome: 'client_error' })).toBe(1);
  });

  it('keeps one registry per gateway', async () => {
    const { status, text } = await scrape(second.gw.url, 'env-secret');
    expect(status).toBe(200);
    expect(sample(text, 'gateway_requests_total', { model: 'gpt-4o-mini', provider: 'mock', endpoint: 'chat', status: '200', outcome: 'ok' })).toBe(0);
  });

  it('shows a refused reload of gateway.yaml, and when it happened, until a reload succeeds', async () => {
    const gauges = async () => {
      const { text } = await scrape(state.gw.url, 'metrics-secret');
      return { ok: sample(text, 'gateway_config_last_reload_success'), at: sample(text, 'gateway_config_last_reload_timestamp_seconds') };
    };
    const before = await gauges();
    expect(before.ok).toBe(1);
    expect(before.at).toBeGreaterThan(Date.now() / 1000 - 3600);
    const yaml = await readFile(state.gw.configFile, 'utf8');
    await writeFile(state.gw.configFile, `${yaml}\nnot_a_setting: true\n`);
    try {
      const started = Date.now() / 1000;
      expect((await state.gw.gateway.config.reload()).ok).toBe(false);
      const refused = await gauges();
      expect(refused.ok).toBe(0);
      expect(refused.at).toBeGreaterThanOrEqual(Math.floor(started));
    } finally {
      await writeFile(state.gw.configFile, yaml);
    }
    expect((await state.gw.gateway.config.reload()).ok).toBe(true);
    expect((await gauges()).ok).toBe(1);
  });

  it('answers 404 once disabled by a reload', async () => {
    const yaml = await readFile(state.gw.configFile, 'utf8');
    await writeFile(state.gw.configFile, yaml.replace('  enabled: true\n  token: metrics-secret', '  enabled: false'));
    expect((await state.gw.gateway.config.reload()).ok).toBe(true);
    expect((await scrape(state.gw.url, 'metrics-secret')).status).toBe(404);
  });
});
