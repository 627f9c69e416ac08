/**
 * OpenTelemetry traces (src/kernel/tracing.ts), exported over OTLP/HTTP to a receiver in this test by the
 * gateway process as an operator runs it: a SERVER span per request with the GenAI attributes and
 * the caller's ids, continuing the client's traceparent; a CLIENT span per upstream attempt of a
 * fallback (retry and fallback reasons); the attempt's context sent upstream as traceparent; the
 * spans still buffered exported at SIGTERM. Off (no OTLP endpoint), nothing of OpenTelemetry loads.
 */
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, waitHealthy, type GatewayProcess } from '../_process.ts';
import { DEMO_KEY, startMockUpstream, startTestGateway, type MockUpstream } from '../_setup.ts';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../otlp-receiver.ts';
import * as tracingModule from '../../src/kernel/tracing.ts';

const CLIENT_TRACE = '0af7651916cd43dd8448eb211c80319c';
const CLIENT_SPAN = 'b7ad6b7169203331';

let mock: MockUpstream;
let receiver: OtlpReceiver;
let dir: string;
let gw: GatewayProcess;

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as { port: number }).port;
  await new Promise((done) => server.close(done));
  return port;
}

const chat = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  fetch(`${gw.url}/api/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ messages: [{ role: 'user', content: 'hello there' }], ...body }),
  });

beforeAll(async () => {
  mock = await startMockUpstream();
  receiver = await startOtlpReceiver();
  dir = await mkdtemp(join(tmpdir(), 'gw-otel-'));
  const configFile = join(dir, 'gateway.yaml');
  await cp(resolve('test/fixtures/fallback.yaml'), configFile);
  gw = await spawnGateway({
    GATEWAY_CONFIG: configFile,
    GATEWAY_DATA_DIR: join(dir, 'data'),
    GATEWAY_WATCH: 'false',
    MOCK_URL: `${mock.url}/v1`,
    MOCK_BASE: mock.url,
    DEAD_URL: `http://127.0.0.1:${await closedPort()}/v1`,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_SERVICE_NAME: 'gateway-under-test',
    // Nothing is exported on a timer during the test: what arrives was flushed at SIGTERM.
    OTEL_BSP_SCHEDULE_DELAY: '600000',
  });
  await waitHealthy(gw, 110_000);
}, 120_000); // a child process boots slowly when the whole suite runs on two cores
afterAll(async () => {
  gw?.child.kill('SIGKILL');
  await receiver?.close();
  await mock?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('traces over OTLP', { timeout: 60_000 }, () => {
  let spans: ReceivedSpan[];

  it('serves a fallback and a stream, then exports every span at SIGTERM and exits 0', async () => {
    const fallback = await chat({ model: 'main/fail-500', fallbacks: ['main/primary'], max_tokens: 50 }, { traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01` });
    expect(fallback.status).toBe(200);
    expect((await fallback.json()).model).toBe('main/primary');
    const stream = await chat({ model: 'main/primary', stream: true });
    expect(stream.status).toBe(200);
    expect(await stream.text()).toContain('[DONE]');
    await new Promise((r) => setTimeout(r, 300)); // the stream's completion runs after its last byte
    expect(receiver.spans).toHaveLength(0);
    gw.child.kill('SIGTERM');
    expect(await gw.exited).toBe(0);
    expect(gw.output()).toContain('tracing on');
    spans = await receiver.waitFor((s) => s.filter((span) => span.kind === 2).length >= 2);
    expect(receiver.other).toEqual([]);
  });

  it('a request span continues the client trace with the GenAI attributes and the caller ids', () => {
    const request = spans.find((s) => s.kind === 2 && s.traceId === CLIENT_TRACE)!;
    expect(request).toBeDefined();
    expect(request.parentSpanId).toBe(CLIENT_SPAN);
    expect(request.name).toBe('chat main/fail-500');
    expect(request.resource['service.name']).toBe('gateway-under-test');
    expect(request.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'main/fail-500',
      'gen_ai.request.max_tokens': 50,
      'gen_ai.response.model': 'primary',
      'gen_ai.provider.name': 'main',
      'gen_ai.response.finish_reasons': ['stop'],
      'gateway.account.id': 'demo',
      'gateway.api_key.id': 'demo-key',
      'gateway.group.id': 'default',
      'gateway.attempts': 3,
      'http.response.status_code': 200,
    });
    expect(request.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
    expect(request.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    expect(typeof request.attributes['gen_ai.response.id']).toBe('string');
  });

  it('a child span per upstream attempt: provider, deployment, status, retry and fallback reasons; its context sent upstream', () => {
    const request = spans.find((s) => s.kind === 2 && s.traceId === CLIENT_TRACE)!;
    const attempts = spans.filter((s) => s.parentSpanId === request.spanId).sort((a, b) => a.startMs - b.startMs);
    expect(attempts.map((s) => [s.kind, s.name, s.attributes['gateway.attempt.kind'], s.attributes['http.response.status_code']])).toEqual([
      [3, 'chat fail-500', 'first', 500],
      [3, 'chat fail-500', 'retry', 500],
      [3, 'chat primary', 'fallback', 200],
    ]);
    expect(attempts[0]!.attributes).toMatchObject({ 'gateway.deployment': 'main/fail-500', 'gateway.provider.id': 'main', 'gen_ai.request.model': 'fail-500' });
    expect(attempts[0]!.attributes['error.type']).toBeTruthy();
    expect(attempts[0]!.status.code).toBe(2);
    expect(attempts[0]!.attributes['gateway.attempt.reason']).toBeUndefined();
    expect(attempts[1]!.attributes['gateway.attempt.reason']).toBe(attempts[0]!.attributes['error.type']);
    expect(attempts[2]!.attributes['gateway.attempt.reason']).toBe(attempts[1]!.attributes['error.type']);
    expect(attempts[2]!.attributes['error.type']).toBeUndefined();
    for (const s of attempts) expect(s.startMs).toBeGreaterThanOrEqual(request.startMs);
    expect(attempts[2]!.endMs).toBeLessThanOrEqual(request.endMs);
    // The upstream saw each attempt's own span as its parent, in the client's trace.
    const sent = mock.requests.filter((r) => String(r.headers.traceparent ?? '').includes(CLIENT_TRACE)).map((r) => r.headers.traceparent);
    expect(sent).toEqual(attempts.map((s) => `00-${CLIENT_TRACE}-${s.spanId}-01`));
  });

  it('a stream without a client traceparent starts its own trace, with its finish reason and usage', () => {
    const request = spans.find((s) => s.kind === 2 && s.traceId !== CLIENT_TRACE)!;
    expect(request.parentSpanId).toBeUndefined();
    expect(request.attributes).toMatchObject({ 'gateway.stream': true, 'gen_ai.response.finish_reasons': ['stop'], 'gen_ai.response.model': 'primary' });
    expect(request.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    expect(request.attributes['gen_ai.response.id']).toMatch(/^chatcmpl-/);
    const [attempt] = spans.filter((s) => s.parentSpanId === request.spanId);
    expect(attempt).toMatchObject({ kind: 3, name: 'chat primary' });
    expect(mock.requests.at(-1)!.headers.traceparent).toBe(`00-${request.traceId}-${attempt!.spanId}-01`);
  });
});

describe('traces off', () => {
  it('without an OTLP endpoint: no tracer, no trace on the context, no traceparent upstream', async () => {
    const local = await startTestGateway('fallback.yaml', { MOCK_URL: `${mock.url}/v1`, MOCK_BASE: mock.url, DEAD_URL: 'http://127.0.0.1:9/v1' });
    try {
      mock.reset();
      const answer = await fetch(`${local.url}/api/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json', traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01` },
        body: JSON.stringify({ model: 'main/primary', messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(answer.status).toBe(200);
      expect(tracingModule.tracing).toBeNull();
      expect(mock.requests[0]!.headers.traceparent).toBeUndefined();
    } finally {
      await local.close();
    }
    expect(tracingModule.tracingRequested({})).toBe(false);
    expect(tracingModule.tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://x/v1/traces' })).toBe(true);
    expect(tracingModule.tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x', OTEL_SDK_DISABLED: 'true' })).toBe(false);
  });

  it('the bundle imports OpenTelemetry only dynamically, when tracing is switched on', async () => {
    const bundle = await readFile('dist/main.mjs', 'utf8');
    expect(bundle).toMatch(/import\("@opentelemetry\/sdk-node"\)/);
    expect(bundle).not.toMatch(/^import[^;]*from\s*"@opentelemetry/m);
  });
});
