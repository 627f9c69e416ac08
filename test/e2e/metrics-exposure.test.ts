/**
 * Who can read /metrics: on the API port only with the bearer token (or `metrics.public: true`,
 * chosen explicitly), otherwise 403; with a metrics port (GATEWAY_METRICS_PORT), there only (the API
 * port answers 404), still behind the token when one is set. The in-flight gauge the autoscaler
 * reads counts a stream until its last byte.
 */
import { writeFile, readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../_process.ts';
import { DEMO_KEY, startMockUpstream, startTestGateway, type MockUpstream, type TestGateway } from '../_setup.ts';
import { sample } from '../prometheus-sample.ts';

let mock: MockUpstream;
beforeAll(async () => {
  mock = await startMockUpstream();
});
afterAll(() => mock?.close());

const start = (fixture: string, env: Record<string, string> = {}) =>
  startTestGateway(fixture, { MOCK_URL: `${mock.url}/v1`, MOCK_BASE: mock.url, ...env });

async function scrape(url: string, token?: string) {
  const res = await fetch(`${url}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const text = await res.text();
  return { status: res.status, text, json: res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : null };
}

describe('metrics on the API port', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await start('metrics-private.yaml'); // metrics enabled, no token, not public
  });
  afterAll(() => gw?.close());

  it('are refused (403) without a token, unless metrics.public is chosen; a reload applies it', async () => {
    const refused = await scrape(gw.url);
    expect(refused.status).toBe(403);
    expect(refused.json.error).toMatchObject({ type: 'permission_error', code: 'metrics_not_public', param: null });
    expect(refused.json.error.message).toMatch(/metrics\.token.*metrics\.port.*metrics\.public/);
    const yaml = await readFile(gw.configFile, 'utf8');
    await writeFile(gw.configFile, yaml.replace('metrics:\n  enabled: true\n', 'metrics:\n  enabled: true\n  public: true\n'));
    await gw.gateway.config.reload();
    const open = await scrape(gw.url);
    expect(open.status).toBe(200);
    expect(open.text).toContain('# TYPE gateway_requests_total counter');
  });
});

describe('metrics on their own port (GATEWAY_METRICS_PORT)', () => {
  let gw: TestGateway;
  let metricsUrl: string;
  beforeAll(async () => {
    const port = await freePort();
    metricsUrl = `http://127.0.0.1:${port}`;
    gw = await start('metrics.yaml', { GATEWAY_METRICS_PORT: String(port) }); // token: metrics-secret
  });
  afterAll(() => gw?.close());

  it('are served there only, behind the token; the API port answers 404, even with the token', async () => {
    expect((await scrape(gw.url, 'metrics-secret')).status).toBe(404);
    expect((await scrape(gw.url)).json.error.code).toBe('route_not_found');
    const noToken = await scrape(metricsUrl);
    expect(noToken.status).toBe(401);
    expect(noToken.json.error.code).toBe('invalid_metrics_token');
    expect((await scrape(metricsUrl, 'wrong')).status).toBe(401);
    const ok = await scrape(metricsUrl, 'metrics-secret');
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('# TYPE gateway_inflight_requests gauge');
  });

  it('answers nothing else on the metrics port', async () => {
    const res = await fetch(`${metricsUrl}/v1/system/health`);
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe('route_not_found');
    const post = await fetch(`${metricsUrl}/metrics`, { method: 'POST', headers: { authorization: 'Bearer metrics-secret' } });
    expect(post.status).toBe(404);
    await post.text();
  });

  it('counts a stream in flight until it ends (here: the client leaves a stalled one)', async () => {
    const gauge = async () => sample((await scrape(metricsUrl, 'metrics-secret')).text, 'gateway_inflight_requests');
    const until = async (value: number) => {
      for (let i = 0; i < 100 && (await gauge()) !== value; i++) await new Promise((r) => setTimeout(r, 20));
      return gauge();
    };
    expect(await gauge()).toBe(0);
    mock.setBehavior('gpt-4o', { stallAfterChunks: 1, times: 1 });
    const abort = new AbortController();
    const res = await fetch(`${gw.url}/api/v1/chat/completions`, {
      method: 'POST',
      signal: abort.signal,
      headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    await reader.read(); // the first chunk came; the upstream holds the rest
    expect(await gauge()).toBe(1);
    abort.abort();
    await reader.read().catch(() => {});
    expect(await until(0)).toBe(0);
  });
});
