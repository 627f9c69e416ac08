/**
 * OpenTelemetry traces (src/pipeline/tracing.ts), exported over OTLP/HTTP to a receiver in this test by the
 * gateway process as an operator runs it: a SERVER span per request with the GenAI attributes and
 * the caller's ids, continuing the client's traceparent; a CLIENT span per upstream call of a
 * fallback (retry and fallback reasons), a stream's lasting to its end, each call of a hedged race
 * its own (the loser's ended as cancelled, the request's from the winner); the call's context, and
 * nothing else, sent upstream as traceparent; the spans still buffered exported at SIGTERM, and a
 * collector that is down costs one warning, not the exit code. Off (no OTLP endpoint), nothing of
 * OpenTelemetry loads.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, waitHealthy, type GatewayProcess } from '../_process.ts';
import { closedPort, DEMO_KEY, MASTER_KEY, startMockUpstream, startTestGateway, waitForLogRecord, type MockUpstream } from '../_setup.ts';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../otlp-receiver.ts';
import * as tracingModule from '../../src/pipeline/tracing.ts';
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
  messages: '7af7651916cd43dd8448eb211c80319c',
  generate: '8af7651916cd43dd8448eb211c80319c',
  hedgedStream: '9af7651916cd43dd8448eb211c80319c',
  hedgedJson: 'aaf7651916cd43dd8448eb211c80319c',
};
/** The hedge point of this test's gateway: the fixture's, set low (a deployment without samples). */
const HEDGE_AFTER_MS = 2000;
const traceparent = (trace: string) => ({ traceparent: `00-${trace}-${CLIENT_SPAN}-01` });

let mock: MockUpstream;
let receiver: OtlpReceiver;
let dir: string;
let gw: GatewayProcess;

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
  // The fixture with an early hedge point, for the hedged requests (the others have no late first token).
  const fixture = await readFile(resolve('test/fixtures/fallback.yaml'), 'utf8');
  await writeFile(configFile, fixture.replace(/^routing:\n/m, `routing:\n  hedge: { after_ms: ${HEDGE_AFTER_MS} }\n`));
  gw = await spawnGateway({
    GATEWAY_CONFIG: configFile,
    GATEWAY_DATA_DIR: join(dir, 'data'),
    GATEWAY_WATCH: 'false',
    GATEWAY_MASTER_KEY: MASTER_KEY,
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
  let rows: Record<'fallback' | 'stream', { trace_id: string | null }>;
  let hedgedAnswers: { stream: string; json: { model: string; usage: { prompt_tokens: number; completion_tokens: number } } };
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
    // The other interfaces: a Messages call and a generateContent stream, on the same pipeline.
    const messages = await fetch(`${gw.url}/api/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': DEMO_KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json', ...traceparent(TRACES.messages) },
      body: JSON.stringify({ model: 'main/primary', max_tokens: 50, messages: [{ role: 'user', content: 'hello there' }] }),
    });
    expect(messages.status).toBe(200);
    expect((await messages.json()).type).toBe('message');
    const generate = await fetch(`${gw.url}/api/v1beta/models/main/primary:streamGenerateContent?alt=sse&key=${DEMO_KEY}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...traceparent(TRACES.generate) },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hello there' }] }] }),
    });
    expect(generate.status).toBe(200);
    expect(await generate.text()).toContain('"candidates"');
    // A first token that does not come (streamed, and a JSON answer): the fallback is started
    // beside it at the hedge point, answers, and the first call is cancelled.
    mock.setBehavior('busy', { delayMs: 60_000 });
    mock.setBehavior('busy2', { delayMs: 60_000 });
    const hedged = await Promise.all([
      chat({ model: 'main/busy', fallbacks: ['main/primary'], stream: true, stream_options: { include_usage: true } }, traceparent(TRACES.hedgedStream)),
      chat({ model: 'main/busy2', fallbacks: ['main/primary'] }, traceparent(TRACES.hedgedJson)),
    ]);
    expect(hedged.map((r) => r.status)).toEqual([200, 200]);
    hedgedAnswers = { stream: await hedged[0].text(), json: await hedged[1].json() };
    await new Promise((r) => setTimeout(r, 700)); // the streams' completions run after their last byte, or the abort
    expect(receiver.spans).toHaveLength(0);
    // The call-log rows carry their request's trace id (GET /v1/admin/logs/{id}), the client's when it sent one.
    rows = {
      fallback: await waitForLogRecord(gw, fallback.headers.get('x-request-id')!),
      stream: await waitForLogRecord(gw, stream.headers.get('x-request-id')!),
    };
    gw.child.kill('SIGTERM');
    expect(await gw.exited).toBe(0);
    expect(gw.output()).toContain('tracing on');
    spans = await receiver.waitFor((s) => s.filter((span) => span.kind === 2).length >= 10);
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

  it('the call-log row of a request names its trace, and so leads to its spans', () => {
    expect(rows.fallback.trace_id).toBe(CLIENT_TRACE);
    expect(rows.stream.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(spans.some((s) => s.kind === 2 && s.traceId === rows.stream.trace_id)).toBe(true);
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

  it('a Messages request is a chat at its own path; a generateContent one is named after its operation, its path without the key', () => {
    const messages = spansOf(TRACES.messages);
    expect(messages.request.name).toBe('chat main/primary');
    expect(messages.request.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'url.path': '/api/v1/messages',
      'gateway.endpoint': 'messages',
      'gateway.api_key.id': 'demo-key',
      'http.response.status_code': 200,
    });
    expect(messages.calls.map((s) => s.name)).toEqual(['chat primary']);
    const generate = spansOf(TRACES.generate);
    expect(generate.request.name).toBe('generate_content main/primary');
    expect(generate.request.attributes).toMatchObject({
      'gen_ai.operation.name': 'generate_content',
      'url.path': '/api/v1beta/models/main/primary:streamGenerateContent',
      'gateway.endpoint': 'generate_content',
      'gateway.stream': true,
    });
    expect(JSON.stringify(generate)).not.toContain(DEMO_KEY);
    expect(generate.calls.map((s) => s.name)).toEqual(['chat primary']);
  });

  it('a target the gateway passed over is no upstream span', () => {
    const { request, calls } = spansOf(TRACES.refused);
    expect(request.attributes['gateway.attempts']).toBe(2);
    expect(calls.map((s) => [s.name, s.attributes['gateway.attempt.kind'], s.status.code ?? 0])).toEqual([['chat primary', 'fallback', 0]]);
    expect(calls[0]!.attributes['gateway.attempt.reason']).toBe('unsupported_parameter');
  });

  it('each call of a hedged race has its own span: the loser ends cancelled, the hedge with its answer, which the request reports', () => {
    const streamUsage = hedgedAnswers.stream
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(6)))
      .find((chunk) => chunk.usage)!.usage;
    const cases = [
      { trace: TRACES.hedgedStream, slow: 'busy', usage: streamUsage },
      { trace: TRACES.hedgedJson, slow: 'busy2', usage: hedgedAnswers.json.usage },
    ];
    for (const { trace, slow, usage } of cases) {
      const { request, calls } = spansOf(trace);
      expect(calls.map((s) => [s.name, s.attributes['gateway.attempt.kind']])).toEqual([
        [`chat ${slow}`, 'first'],
        ['chat primary', 'hedged'],
      ]);
      const [loser, winner] = calls;
      // The loser: cancelled by the gateway, no upstream failure and no answer of its own.
      expect(loser!.attributes['gateway.hedge.lost']).toBe(true);
      expect(loser!.events.map((e) => e.name)).toEqual(['gateway.hedge.cancelled']);
      expect(loser!.status.code ?? 0).toBe(0);
      expect(loser!.attributes).not.toHaveProperty('http.response.status_code');
      expect(loser!.attributes).not.toHaveProperty('error.type');
      // Ended within the request (a JSON winner's span may end the same moment the loser is cancelled).
      expect(loser!.endMs).toBeLessThanOrEqual(request.endMs);
      // The hedge: its own status, model and usage.
      expect(winner!.attributes).toMatchObject({
        'gateway.attempt.reason': 'first_token_late',
        'http.response.status_code': 200,
        'gen_ai.response.model': 'primary',
        'gen_ai.usage.input_tokens': usage.prompt_tokens,
        'gen_ai.usage.output_tokens': usage.completion_tokens,
      });
      expect(winner!.attributes).not.toHaveProperty('error.type');
      expect(winner!.attributes).not.toHaveProperty('gateway.hedge.lost');
      // The request reports the winner.
      expect(request.status.code ?? 0).toBe(0);
      expect(request.attributes).toMatchObject({
        'http.response.status_code': 200,
        'gateway.provider.id': 'main',
        'gen_ai.response.model': 'primary',
        'gen_ai.usage.input_tokens': usage.prompt_tokens,
        'gen_ai.usage.output_tokens': usage.completion_tokens,
        'gateway.attempts': 2,
      });
      // Each upstream saw its own call's span as its parent.
      const sent = mock.requests.filter((r) => String(r.headers.traceparent ?? '').includes(trace));
      expect(sent.map((r) => [r.model, r.headers.traceparent])).toEqual([
        [slow, `00-${trace}-${loser!.spanId}-01`],
        ['primary', `00-${trace}-${winner!.spanId}-01`],
      ]);
    }
    expect(hedgedAnswers.json.model).toBe('main/primary');
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
