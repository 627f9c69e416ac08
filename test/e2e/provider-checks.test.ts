/**
 * Provider checks for admins: `POST /v1/admin/providers/{id}/test` (one small call, its status,
 * latency and upstream error, never the provider's key) and `GET /v1/admin/providers/{id}/health`
 * (breaker state per upstream model, recent failed calls), plus the log filters and statistics
 * breakdown the console reads beside them.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, client, closedPort, DEMO_KEY, startMockUpstream, startTestGateway, type MockUpstream, type TestGateway } from '../_setup.ts';

let mock: MockUpstream;
let gw: TestGateway;
let echo: Server;

beforeAll(async () => {
  mock = await startMockUpstream();
  // An upstream that refuses the call and quotes the credential it got: the answer must not.
  echo = createServer((req, res) => {
    res.writeHead(401, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${req.headers.authorization}`, type: 'invalid_request_error', code: 'invalid_api_key' } }));
  });
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  const echoUrl = `http://127.0.0.1:${(echo.address() as AddressInfo).port}/v1`;
  gw = await startTestGateway('provider-checks.yaml', { MOCK_URL: `${mock.url}/v1`, ECHO_URL: echoUrl, DOWN_URL: `http://127.0.0.1:${await closedPort()}/v1` });
});
afterAll(async () => {
  await gw?.close();
  await mock?.close();
  await new Promise((resolve) => echo?.close(resolve));
});

describe('POST /v1/admin/providers/{id}/test', () => {
  it("makes one small call with the provider's first model and answers status, latency and the text", async () => {
    const before = mock.requests.length;
    const { status, body } = await api(gw, 'POST', '/v1/admin/providers/main/test');
    expect(status).toBe(200);
    expect(body).toMatchObject({ object: 'provider_test', provider: 'main', model: 'healthy', ok: true, status: 200, error: null });
    expect(body.content).toEqual(expect.any(String));
    expect(body.latency_ms).toEqual(expect.any(Number));
    expect(mock.requests.length).toBe(before + 1);
    expect(mock.requests.at(-1)!.body).toMatchObject({ model: 'healthy', max_tokens: 5 });
    expect(mock.requests.at(-1)!.headers.authorization).toBe('Bearer main-secret-key-000111');
  });

  it("answers the upstream's status and error for a failing model, and leaves the breaker alone", async () => {
    mock.setBehavior('sick', { status: 503 });
    for (let i = 0; i < 3; i++) {
      const { status, body } = await api(gw, 'POST', '/v1/admin/providers/main/test', { model: 'sick' });
      expect(status).toBe(200);
      expect(body).toMatchObject({ ok: false, status: 503, model: 'sick', content: null, error: { code: null, message: 'mock failure 503' } });
    }
    const health = await api(gw, 'GET', '/v1/admin/providers/main/health');
    expect(health.body.deployments).toContainEqual({ model: 'sick', state: 'closed', failures: 0, retry_in_ms: 0 });
  });

  it("never answers the provider's key, even when the upstream quotes it", async () => {
    const { status, body } = await api(gw, 'POST', '/v1/admin/providers/echo/test');
    expect(status).toBe(200);
    expect(body).toMatchObject({ ok: false, status: 401, error: { code: 'invalid_api_key' } });
    expect(body.error.message).toContain('[redacted]');
    expect(JSON.stringify(body)).not.toContain('echo-secret-key-222333');
  });

  it('says when no answer came at all (connection refused)', async () => {
    const { status, body } = await api(gw, 'POST', '/v1/admin/providers/down/test');
    expect(status).toBe(200);
    expect(body).toMatchObject({ ok: false, status: null, content: null, error: { message: expect.any(String) } });
    expect(JSON.stringify(body)).not.toContain('down-secret-key-444555');
  });

  it('refuses an unknown provider (404), a bad model (400 naming it) and a member (403)', async () => {
    expect((await api(gw, 'POST', '/v1/admin/providers/ghost/test')).status).toBe(404);
    for (const model of ['', 42, 'x'.repeat(300)]) {
      const refused = await api(gw, 'POST', '/v1/admin/providers/main/test', { model });
      expect([refused.status, refused.body.error.param]).toEqual([400, 'model']);
    }
    const member = await api(gw, 'POST', '/v1/admin/providers/main/test', undefined, DEMO_KEY);
    expect(member.status).toBe(403);
    expect(member.body.error.type).toBe('permission_error');
    expect((await api(gw, 'GET', '/v1/admin/providers/main/health', undefined, DEMO_KEY)).status).toBe(403);
  });
});

describe('GET /v1/admin/providers/{id}/health', () => {
  it('shows an open breaker per upstream model and the recent failed calls; logs and breakdown filter on the provider', async () => {
    mock.setBehavior('sick', { status: 503 });
    for (let i = 0; i < 2; i++) {
      await expect(client(gw).chat.completions.create({ model: 'sick-model', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ status: 503 });
    }
    await client(gw).chat.completions.create({ model: 'main/healthy', messages: [{ role: 'user', content: 'hi' }] });
    const health = await api(gw, 'GET', '/v1/admin/providers/main/health');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ object: 'provider_health', provider: 'main', status: 'degraded' });
    expect(health.body.deployments).toEqual([
      { model: 'healthy', state: 'closed', failures: 0, retry_in_ms: 0 },
      { model: 'sick', state: 'open', failures: 2, retry_in_ms: expect.any(Number) },
    ]);
    expect(health.body.deployments[1].retry_in_ms).toBeGreaterThan(0);
    await expect.poll(async () => (await api(gw, 'GET', '/v1/admin/providers/main/health')).body.recent_errors.length).toBe(2);
    const { body } = await api(gw, 'GET', '/v1/admin/providers/main/health');
    expect(body.recent_errors[0]).toMatchObject({ model: 'sick-model', error_code: 'upstream_unavailable' });
    expect((await api(gw, 'GET', '/v1/admin/providers/echo/health')).body).toMatchObject({ status: 'healthy', recent_errors: [] });
    expect((await api(gw, 'GET', '/v1/admin/providers/ghost/health')).status).toBe(404);

    const logs = await api(gw, 'GET', '/v1/admin/logs?provider=main&error_code=upstream_unavailable&endpoint=chat');
    expect(logs.body.meta.total).toBe(2);
    expect(logs.body.data[0]).toMatchObject({ provider: 'main', error_code: 'upstream_unavailable', endpoint: 'chat', account_id: 'demo', status: 'error' });
    expect((await api(gw, 'GET', '/v1/admin/logs?provider=main&endpoint=embeddings')).body.meta.total).toBe(0);
    expect((await api(gw, 'GET', '/v1/admin/logs?endpoint=nope')).body.error.param).toBe('endpoint');

    const byProvider = await api(gw, 'GET', '/v1/statistics/breakdown?by=provider');
    expect(byProvider.status).toBe(200);
    expect(byProvider.body.data).toEqual([expect.objectContaining({ id: 'main', request_count: 3, error_count: 2 })]);
    const byKey = await api(gw, 'GET', '/v1/statistics/breakdown?by=key', undefined, DEMO_KEY);
    expect(byKey.body.data).toEqual([expect.objectContaining({ id: 'demo-key', name: 'Demo key', request_count: 3 })]);
    expect((await api(gw, 'GET', '/v1/statistics/breakdown?by=colour')).body.error.param).toBe('by');
  });
});
