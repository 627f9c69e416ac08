/**
 * OpenTelemetry traces (src/kernel/tracing.ts), exported over OTLP/HTTP to a receiver in this test by the
 * gateway process as an operator runs it: a SERVER span per request with the GenAI attributes and
 * the caller's ids, continuing the client's traceparent; a CLIENT span per upstream call of a
 * fallback (retry and fallback reasons), a stream's lasting to its end; the call's context, and
 * nothing else, sent upstream as traceparent; the spans still buffered exported at SIGTERM, and a
 * collector that is down costs one warning, not the exit code. Off (no OTLP endpoint), nothing of
 * OpenTelemetry loads.
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
import packageJson from '../../package.json' with { type: 'json' };

const { version } = packageJson;

const CLIENT_TRACE = '0af7651916cd43dd8448eb211c80319c';
const CLIENT_SPAN = 'b7ad6b7169203331';
/** One client trace per request below, to find its spans. */
const TRACES = {
  cut: '1af7651916cd43dd8448eb211c80319c',
  slow: '2af7651916cd43dd8448eb211c80319c',
  left: '3af7651916cd43dd8448eb211c80319c',
  embeddings: '4af7651916cd43dd8448eb211c80319c',
  refused: '5af7651916cd43dd8448eb211c80319c',
  baggage: '6af7651916cd43dd8448eb211c80319c',
};
const traceparent = (trace: string) => ({ traceparent: `00-${trace}-${CLIENT_SPAN}-01` });

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
  /** The SERVER span of a request sent with `traceparent(trace)`, and its CLIENT spans in order. */
  const spansOf = (trace: string) => {
    const request = spans.find((s) => s.kind === 2 && s.traceId === trace)!;
    expect(request).toBeDefined();
    return { request, calls: spans.filter((s) => s.parentSpanId === request.spanId).sort((a, b) => a.startMs - b.startMs) };
  };

  it('serves a fallback and a stream, then exports every span at SIGTERM and exits 0', async () => {
    const fallback = await chat({ model: 'main/fail-500', fallbacks: ['main/primary'], max_tokens: 50 }, { traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01` });
    expect(fallback.status).toBe(200);
    expect((await fallback.json()).model).toBe('main/primary');
    const stream = await chat({ model: 'main/primary', stream: true });
    expect(stream.status).toBe(200);
    expect(await stream.text()).toContain('[DONE]');
    // A stream the upstream cuts after its 200, one that takes its time, and one the client leaves.
    expect(await (await chat({ model: 'main/cut', stream: true }, traceparent(TRACES.cut))).text()).toContain('"code":"stream_interrupted"');
    mock.setBehavior('hold', { chunkDelayMs: 250 });
    expect(await (await chat({ model: 'main/hold', stream: true }, traceparent(TRACES.slow))).text()).toContain('[DONE]');
    mock.setBehavior('aborted', { chunkDelayMs: 300 });
    const leaving = new AbortController();
    const left = await fetch(`${gw.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json', ...traceparent(TRACES.left) },
      body: JSON.stringify({ model: 'main/aborted', stream: true, messages: [{ role: 'user', content: 'hello there' }] }),
      signal: leaving.signal,
    });
    await left.body!.getReader().read();
    leaving.abort();
    const embeddings = await fetch(`${gw.url}/api/v1/embeddings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json', ...traceparent(TRACES.embeddings) },
      body: JSON.stringify({ model: 'main/primary', input: 'hello there' }),
    });
    expect(embeddings.status).toBe(200);
    // generateContent cannot keep a model to one tool call per turn: the gateway passes it over itself.
    const refused = await chat({ model: 'gen/gbusy', fallbacks: ['main/primary'], parallel_tool_calls: false }, traceparent(TRACES.refused));
    expect(refused.status).toBe(200);
    const withBaggage = await chat({ model: 'main/primary' }, { ...traceparent(TRACES.baggage), baggage: 'user.email=alice%40corp.example,internal.tenant=acme' });
    expect(withBaggage.status).toBe(200);
    await new Promise((r) => setTimeout(r, 700)); // the streams' completions run after their last byte, or the abort
    expect(receiver.spans).toHaveLength(0);
    gw.child.kill('SIGTERM');
    expect(await gw.exited).toBe(0);
    expect(gw.output()).toContain('tracing on');
    spans = await receiver.waitFor((s) => s.filter((span) => span.kind === 2).length >= 8);
    expect(receiver.other).toEqual([]);
  });

  it('a request span continues the client trace with the GenAI attributes and the caller ids', () => {
    const request = spans.find((s) => s.kind === 2 && s.traceId === CLIENT_TRACE)!;
    expect(request).toBeDefined();
    expect(request.parentSpanId).toBe(CLIENT_SPAN);
    expect(request.name).toBe('chat main/fail-500');
    expect(request.resource['service.name']).toBe('gateway-under-test');
    expect(request.resource['service.version']).toBe(version);
    expect(request.resource['service.instance.id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(request.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'main/fail-500',
      'gen_ai.request.max_tokens': 50,
      'gen_ai.response.model': 'primary',
      'gen_ai.provider.name': 'openai',
      'gateway.provider.id': 'main',
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
    expect(attempts[0]!.attributes).toMatchObject({
      'gateway.deployment': 'main/fail-500',
      'gateway.provider.id': 'main',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'fail-500',
      'server.address': '127.0.0.1',
      'server.port': mock.port,
    });
    expect(attempts[2]!.attributes['gen_ai.response.model']).toBe('primary');
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
    const request = spans.find((s) => s.kind === 2 && s.traceId !== CLIENT_TRACE && !Object.values(TRACES).includes(s.traceId))!;
    expect(request.parentSpanId).toBeUndefined();
    expect(request.attributes).toMatchObject({ 'gateway.stream': true, 'gen_ai.response.finish_reasons': ['stop'], 'gen_ai.response.model': 'primary' });
    expect(request.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    expect(request.attributes['gen_ai.response.id']).toMatch(/^chatcmpl-/);
    const [attempt] = spans.filter((s) => s.parentSpanId === request.spanId);
    expect(attempt).toMatchObject({ kind: 3, name: 'chat primary' });
    expect(attempt!.attributes['gen_ai.usage.output_tokens']).toBe(request.attributes['gen_ai.usage.output_tokens']);
    const sent = mock.requests.filter((r) => String(r.headers.traceparent ?? '').includes(request.traceId));
    expect(sent.map((r) => r.headers.traceparent)).toEqual([`00-${request.traceId}-${attempt!.spanId}-01`]);
  });

  it('a stream cut after its 200 is one upstream span, ended with the break, and a failed request', () => {
    const { request, calls } = spansOf(TRACES.cut);
    expect(request.status.code).toBe(2);
    expect(request.attributes).toMatchObject({ 'http.response.status_code': 200, 'error.type': 'stream_interrupted' });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.status.code).toBe(2);
    expect(calls[0]!.attributes).toMatchObject({ 'http.response.status_code': 200, 'error.type': 'upstream_unavailable' });
    const sent = mock.requests.filter((r) => String(r.headers.traceparent ?? '').includes(TRACES.cut));
    expect(sent.map((r) => r.headers.traceparent)).toEqual([`00-${TRACES.cut}-${calls[0]!.spanId}-01`]);
  });

  it('a stream\'s upstream span lasts to its last chunk, with the usage', () => {
    const { request, calls } = spansOf(TRACES.slow);
    expect(calls).toHaveLength(1);
    const [call] = calls;
    // It ends with the relay, moments before the request: not at the headers, chunks of 250 ms earlier.
    expect(request.endMs - call!.endMs).toBeLessThan(200);
    expect(call!.endMs - call!.startMs).toBeGreaterThan(400);
    expect(call!.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    expect(call!.status.code ?? 0).toBe(0);
  });

  it('a stream the client leaves ends its upstream span as abandoned, not failed', () => {
    const { request, calls } = spansOf(TRACES.left);
    expect(request.attributes['gateway.aborted']).toBe(true);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.attributes).toMatchObject({ 'gateway.aborted': true, 'error.type': 'client_closed' });
    expect(calls[0]!.status.code ?? 0).toBe(0);
  });

  it('an embeddings request is named and placed as one, with no chat temperature', () => {
    const { request, calls } = spansOf(TRACES.embeddings);
    expect(request.name).toBe('embeddings main/primary');
    expect(request.attributes).toMatchObject({ 'gen_ai.operation.name': 'embeddings', 'url.path': '/api/v1/embeddings' });
    expect(request.attributes).not.toHaveProperty('gen_ai.request.temperature');
    expect(calls.map((s) => [s.name, s.attributes['gen_ai.operation.name']])).toEqual([['embeddings primary', 'embeddings']]);
  });

  it('a target the gateway passed over is no upstream span', () => {
    const { request, calls } = spansOf(TRACES.refused);
    expect(request.attributes['gateway.attempts']).toBe(2);
    expect(calls.map((s) => [s.name, s.attributes['gateway.attempt.kind'], s.status.code ?? 0])).toEqual([['chat primary', 'fallback', 0]]);
    expect(calls[0]!.attributes['gateway.attempt.reason']).toBe('unsupported_parameter');
  });

  it('the client\'s baggage never reaches the upstream', () => {
    const sent = mock.requests.filter((r) => String(r.headers.traceparent ?? '').includes(TRACES.baggage));
    expect(sent).toHaveLength(1);
    expect(sent[0]!.headers.baggage).toBeUndefined();
  });
});

describe('traces to a collector that is down', { timeout: 60_000 }, () => {
  /** A gateway whose collector refuses connections; its credentials in the URL. */
  async function startWithCollectorDown(env: Record<string, string>) {
    const collector = `http://collector:s3cr3t@127.0.0.1:${await closedPort()}`;
    const down = await spawnGateway({
      GATEWAY_CONFIG: join(dir, 'gateway.yaml'),
      GATEWAY_DATA_DIR: join(dir, `data-${Math.random().toString(36).slice(2)}`),
      GATEWAY_WATCH: 'false',
      MOCK_URL: `${mock.url}/v1`,
      MOCK_BASE: mock.url,
      DEAD_URL: 'http://127.0.0.1:9/v1',
      OTEL_EXPORTER_OTLP_ENDPOINT: collector,
      // Embedded state whatever CI exports: the only warning expected is the trace export's.
      REDIS_URL: '',
      DATABASE_URL: '',
      ...env,
    });
    await waitHealthy(down, 110_000);
    return down;
  }
  const lines = (process: GatewayProcess) => process.output().trim().split('\n');
  const request = (process: GatewayProcess) =>
    fetch(`${process.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'main/primary', messages: [{ role: 'user', content: 'hi' }] }),
    }).then((r) => r.text());

  it('exits 0 at SIGTERM, with one JSON warning for the spans it could not export', async () => {
    const down = await startWithCollectorDown({ OTEL_BSP_SCHEDULE_DELAY: '600000' });
    try {
      await request(down);
      const started = Date.now();
      down.child.kill('SIGTERM');
      expect(await down.exited).toBe(0);
      expect(Date.now() - started).toBeLessThan(15_000);
      const logged = lines(down).map((line) => JSON.parse(line)); // every line JSON: no stack trace on stderr
      expect(logged.filter((l) => l.level !== 'info').map((l) => l.msg)).toEqual([expect.stringMatching(/^trace export at shutdown (failed|timed out)/)]);
      // The collector's credentials never reach the log.
      expect(logged.find((l) => l.msg === 'tracing on')).toMatchObject({ endpoint: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) });
      expect(down.output()).not.toContain('s3cr3t');
    } finally {
      down.child.kill('SIGKILL');
    }
  });

  it('reports failed exports as rate-limited JSON warnings while it serves', async () => {
    const down = await startWithCollectorDown({ OTEL_BSP_SCHEDULE_DELAY: '50', OTEL_EXPORTER_OTLP_TIMEOUT: '300' });
    try {
      const reported = () => lines(down).filter((line) => line.includes('"opentelemetry sdk"'));
      for (let i = 0; i < 4; i++) {
        await request(down);
        await new Promise((r) => setTimeout(r, 600)); // each batch's export fails within its timeout
      }
      expect(reported().length).toBeGreaterThanOrEqual(1);
      const warnings = reported().map((line) => JSON.parse(line));
      expect(warnings[0]).toMatchObject({ level: 'warn', detail: expect.stringContaining('ECONNREFUSED') });
      // Four failed batches, one line per distinct message within the minute.
      expect(new Set(warnings.map((w) => w.detail)).size).toBe(warnings.length);
    } finally {
      down.child.kill('SIGKILL');
      await down.exited;
    }
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
    expect(bundle).toMatch(/import\("@opentelemetry\/sdk-trace"\)/);
    expect(bundle).not.toMatch(/^import[^;]*from\s*"@opentelemetry/m);
  });
});
