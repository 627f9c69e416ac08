import * as api from '@opentelemetry/api';
import * as core from '@opentelemetry/core';
import * as sdk from '@opentelemetry/sdk-trace';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createContext, type Endpoint } from './context.ts';
import type { Attempt } from './outcome.ts';
import { testConfig, testRuntime } from './test-context.ts';
import type { ChatRequest } from '../providers/openai-types.ts';
import type { Target } from '../providers/types.ts';
import { createTracing } from './request-trace.ts';

const runtime = testRuntime(
  testConfig(`providers:
  - id: main
    name: Main
    type: compat
    endpoint: https://api.example.test:8443/v1
    models: [primary]
  - id: msgs
    name: Messages
    type: vendor_b
    endpoint: https://msgs.example.test
    models: [claude]
`),
);
const target = (provider: 'main' | 'msgs', upstreamModel: string): Target => ({
  provider: runtime.current().providers.get(provider)!,
  upstreamModel,
  requestedAs: `${provider}/${upstreamModel}`,
});
const MAIN = target('main', 'primary');
/** The signal a call is sent with: its identity for the trace. */
const CALL = {};

const exporter = new sdk.InMemorySpanExporter();
const provider = new sdk.TracerProvider({ spanProcessors: [new sdk.SimpleSpanProcessor({ exporter })] });
const tracing = createTracing(api, provider.getTracer('test'), new core.W3CTraceContextPropagator());

function context(endpoint: Endpoint, body: Record<string, unknown>, headers: Record<string, string> = {}, path = `/api/v1/${endpoint}`) {
  return createContext({
    request: new Request(`http://localhost${path}`, { method: 'POST', headers }),
    endpoint,
    runtime,
    snapshot: runtime.current(),
    ip: '127.0.0.1',
    body: body as ChatRequest,
    rawBody: body,
    signal: new AbortController().signal,
  });
}

const attempt = (over: Partial<Attempt>): Attempt => ({
  model: 'main/primary', provider: 'main', upstreamModel: 'primary', status: 200, errorCode: null, latencyMs: 5, kind: 'first', ...over,
});
const spans = () => exporter.getFinishedSpans();
const clients = () => spans().filter((s) => s.kind === api.SpanKind.CLIENT);
const server = () => spans().find((s) => s.kind === api.SpanKind.SERVER)!;

beforeEach(() => exporter.reset());
afterAll(() => api.propagation.disable());

describe('request trace', () => {
  it('keeps a stream\'s upstream span open through the relay and ends it with the usage: one span per call', () => {
    const ctx = context('chat', { model: 'main/primary', stream: true });
    const trace = tracing.start(ctx)!;
    const call = trace.beginAttempt(MAIN, CALL);
    call.firstEvent('{"id":"c1","object":"chat.completion.chunk","model":"primary-2024-08-06","choices":[]}');
    call.streams();
    trace.endAttempt(attempt({}), CALL);
    expect(clients()).toHaveLength(0); // still relaying
    trace.endStream({ usage: { prompt_tokens: 7, completion_tokens: 11 }, aborted: false });
    Object.assign(ctx.outcome, { status: 200, streamed: true, served: { model: 'main/primary', provider: 'main', upstreamModel: 'primary' } });
    trace.end(ctx);
    const [span] = clients();
    expect(clients()).toHaveLength(1);
    expect(span!.attributes).toMatchObject({
      'http.response.status_code': 200,
      'gen_ai.usage.input_tokens': 7,
      'gen_ai.usage.output_tokens': 11,
      'gen_ai.response.model': 'primary-2024-08-06',
    });
    expect(span!.status.code).toBe(api.SpanStatusCode.UNSET);
    expect(server().attributes['gen_ai.response.model']).toBe('primary-2024-08-06');
  });

  it('ends the same span with the break of a stream that fails mid-way, and marks the request failed', () => {
    const ctx = context('chat', { model: 'main/primary', stream: true });
    const trace = tracing.start(ctx)!;
    trace.beginAttempt(MAIN, CALL).streams();
    trace.endAttempt(attempt({}), CALL);
    trace.endAttempt(attempt({ status: 502, errorCode: 'stream_interrupted' }));
    trace.endStream({ aborted: false });
    Object.assign(ctx.outcome, { status: 200, streamed: true, error: { code: 'stream_interrupted', message: 'cut', type: 'upstream_error' } });
    trace.end(ctx);
    expect(clients()).toHaveLength(1);
    const [span] = clients();
    expect(span!.attributes).toMatchObject({ 'http.response.status_code': 200, 'error.type': 'stream_interrupted' });
    expect(span!.status.code).toBe(api.SpanStatusCode.ERROR);
    expect(server().status.code).toBe(api.SpanStatusCode.ERROR);
    expect(server().attributes['error.type']).toBe('stream_interrupted');
  });

  it('marks a stream the client left as abandoned, not as an upstream failure', () => {
    const ctx = context('chat', { model: 'main/primary', stream: true });
    const trace = tracing.start(ctx)!;
    trace.beginAttempt(MAIN, CALL).streams();
    trace.endAttempt(attempt({}), CALL);
    trace.endStream({ aborted: true });
    Object.assign(ctx.outcome, { status: 200, streamed: true, aborted: true });
    trace.end(ctx);
    expect(clients()[0]!.attributes).toMatchObject({ 'gateway.aborted': true, 'error.type': 'client_closed' });
    expect(clients()[0]!.status.code).toBe(api.SpanStatusCode.UNSET);
    expect(server().status.code).toBe(api.SpanStatusCode.UNSET);
  });

  it('gives each call of a hedged race its own span: the loser ends cancelled, the hedge carries its own answer and the request reports it', () => {
    const ctx = context('chat', { model: 'msgs/claude', stream: true, fallbacks: ['main/primary'] });
    const trace = tracing.start(ctx)!;
    const [slowSignal, hedgeSignal] = [{}, {}];
    const slow = trace.beginAttempt(target('msgs', 'claude'), slowSignal);
    // Past the hedge point, the next target is started beside the first, which is still waiting.
    const hedge = trace.beginAttempt(MAIN, hedgeSignal);
    expect(clients()).toHaveLength(0);
    hedge.firstEvent('{"id":"c1","object":"chat.completion.chunk","model":"primary-2024-08-06","choices":[]}');
    hedge.streams();
    // The hedge's first token decides the race: the first call is cancelled, then the hedge is recorded.
    trace.endAttempt(attempt({ provider: 'msgs', upstreamModel: 'claude', status: 0, errorCode: 'hedge_cancelled', cancelled: true }), slowSignal);
    trace.endAttempt(attempt({ kind: 'hedged' }), hedgeSignal);
    // The loser's answer came anyway: it is dropped, and writes nothing on any span.
    slow.answered({ model: 'claude-late' });
    slow.used({ prompt_tokens: 99, completion_tokens: 99 });
    trace.endStream({ usage: { prompt_tokens: 7, completion_tokens: 11 }, aborted: false });
    Object.assign(ctx.outcome, {
      status: 200,
      streamed: true,
      usage: { prompt_tokens: 7, completion_tokens: 11, total_tokens: 18 },
      served: { model: 'main/primary', provider: 'main', upstreamModel: 'primary' },
    });
    trace.end(ctx);
    const byName = Object.fromEntries(clients().map((s) => [s.name, s]));
    expect(clients()).toHaveLength(2);
    const loser = byName['chat claude']!;
    const winner = byName['chat primary']!;
    expect(loser.attributes).toMatchObject({ 'gateway.attempt.kind': 'first', 'gateway.hedge.lost': true });
    expect(loser.attributes).not.toHaveProperty('http.response.status_code');
    expect(loser.attributes).not.toHaveProperty('gen_ai.response.model');
    expect(loser.attributes).not.toHaveProperty('gen_ai.usage.input_tokens');
    expect(loser.status.code).toBe(api.SpanStatusCode.UNSET); // cancelled by design, not failed
    expect(loser.events.map((e) => e.name)).toEqual(['gateway.hedge.cancelled']);
    expect(winner.attributes).toMatchObject({
      'gateway.attempt.kind': 'hedged',
      'gateway.attempt.reason': 'first_token_late',
      'http.response.status_code': 200,
      'gen_ai.response.model': 'primary-2024-08-06',
      'gen_ai.usage.input_tokens': 7,
      'gen_ai.usage.output_tokens': 11,
    });
    expect(winner.attributes).not.toHaveProperty('error.type');
    expect(winner.status.code).toBe(api.SpanStatusCode.UNSET);
    expect(server().attributes).toMatchObject({
      'gen_ai.response.model': 'primary-2024-08-06',
      'gen_ai.usage.input_tokens': 7,
      'gen_ai.usage.output_tokens': 11,
      'gateway.provider.id': 'main',
    });
  });

  it('gives a hedge that loses its own span too, and lets the first call serve', () => {
    const ctx = context('chat', { model: 'main/primary', fallbacks: ['msgs/claude'] });
    const trace = tracing.start(ctx)!;
    const [firstSignal, hedgeSignal] = [{}, {}];
    const first = trace.beginAttempt(MAIN, firstSignal);
    trace.beginAttempt(target('msgs', 'claude'), hedgeSignal);
    first.answered({ model: 'primary-2024-08-06' });
    trace.endAttempt(attempt({ provider: 'msgs', upstreamModel: 'claude', status: 0, errorCode: 'hedge_cancelled', cancelled: true, kind: 'hedged' }), hedgeSignal);
    trace.endAttempt(attempt({}), firstSignal);
    Object.assign(ctx.outcome, { status: 200, served: { model: 'main/primary', provider: 'main', upstreamModel: 'primary' } });
    trace.end(ctx);
    const byName = Object.fromEntries(clients().map((s) => [s.name, s]));
    expect(byName['chat claude']!.attributes).toMatchObject({ 'gateway.attempt.kind': 'hedged', 'gateway.hedge.lost': true });
    expect(byName['chat primary']!.attributes).toMatchObject({ 'gateway.attempt.kind': 'first', 'http.response.status_code': 200, 'gen_ai.response.model': 'primary-2024-08-06' });
    expect(byName['chat primary']!.attributes).not.toHaveProperty('gateway.hedge.lost');
    expect(server().attributes['gen_ai.response.model']).toBe('primary-2024-08-06');
  });

  it('records a target passed over as an event on the request span, not as an upstream call', () => {
    const ctx = context('chat', { model: 'msgs/claude', fallbacks: ['main/primary'] });
    const trace = tracing.start(ctx)!;
    trace.passOver(attempt({ provider: 'msgs', upstreamModel: 'claude', status: 0, errorCode: 'unsupported_parameter', latencyMs: 0, refused: true }));
    trace.beginAttempt(MAIN, CALL);
    trace.endAttempt(attempt({ kind: 'fallback' }), CALL);
    Object.assign(ctx.outcome, { status: 200 });
    trace.end(ctx);
    expect(clients().map((s) => s.name)).toEqual(['chat primary']);
    expect(clients()[0]!.attributes['gateway.attempt.reason']).toBe('unsupported_parameter');
    expect(server().events.map((e) => [e.name, e.attributes])).toEqual([
      ['gateway.target.passed_over', { 'gateway.provider.id': 'msgs', 'gateway.deployment': 'msgs/claude', 'gateway.attempt.kind': 'first', 'gateway.reason': 'unsupported_parameter' }],
    ]);
  });

  it('names an embeddings request after its operation and path, without chat parameters', () => {
    const ctx = context('embeddings', { model: 'main/primary', input: 'hi', temperature: 0.7 });
    const trace = tracing.start(ctx)!;
    const call = trace.beginAttempt(MAIN, CALL);
    call.answered({ object: 'list', model: 'text-embedding-3-small', data: [] });
    call.used({ prompt_tokens: 2 });
    trace.endAttempt(attempt({}), CALL);
    Object.assign(ctx.outcome, { status: 200, served: { model: 'main/primary', provider: 'main', upstreamModel: 'primary' } });
    trace.end(ctx);
    expect(server().name).toBe('embeddings main/primary');
    expect(server().attributes).toMatchObject({ 'gen_ai.operation.name': 'embeddings', 'url.path': '/api/v1/embeddings' });
    expect(server().attributes).not.toHaveProperty('gen_ai.request.temperature');
    expect(clients()[0]!.name).toBe('embeddings primary');
    expect(clients()[0]!.attributes).toMatchObject({ 'gen_ai.operation.name': 'embeddings', 'gen_ai.usage.input_tokens': 2, 'gen_ai.response.model': 'text-embedding-3-small' });
  });

  it('names a Messages request a chat and a generateContent one after its own operation and path; their upstream calls are chats', () => {
    const served = { status: 200, served: { model: 'main/primary', provider: 'main', upstreamModel: 'primary' } };
    const messages = context('messages', { model: 'main/primary', messages: [] });
    const trace = tracing.start(messages)!;
    Object.assign(messages.outcome, served);
    trace.end(messages);
    expect(server().name).toBe('chat main/primary');
    expect(server().attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'url.path': '/api/v1/messages', 'gateway.endpoint': 'messages' });
    exporter.reset();
    const generate = context('generate_content', { model: 'main/primary', messages: [] }, {}, '/api/v1beta/models/main/primary:generateContent');
    const traced = tracing.start(generate)!;
    traced.beginAttempt(MAIN, CALL);
    traced.endAttempt(attempt({}), CALL);
    Object.assign(generate.outcome, served);
    traced.end(generate);
    expect(server().name).toBe('generate_content main/primary');
    expect(server().attributes).toMatchObject({
      'gen_ai.operation.name': 'generate_content',
      'url.path': '/api/v1beta/models/main/primary:generateContent',
      'gateway.endpoint': 'generate_content',
    });
    expect(clients().map((s) => [s.name, s.attributes['gen_ai.operation.name']])).toEqual([['chat primary', 'chat']]);
  });

  it('gives an upstream span its model, provider and server from the start, even when the call is cut short', () => {
    const ctx = context('chat', { model: 'msgs/claude' });
    const trace = tracing.start(ctx)!;
    trace.beginAttempt(target('msgs', 'claude'), CALL);
    trace.end(ctx); // the client left before the call was recorded
    expect(clients()[0]!.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'claude',
      'server.address': 'msgs.example.test',
      'server.port': 443,
      'gateway.provider.id': 'msgs',
      'gateway.deployment': 'msgs/claude',
      'gateway.model': 'msgs/claude',
    });
    const other = tracing.start(context('chat', { model: 'main/primary' }))!;
    other.beginAttempt(MAIN, CALL);
    other.endAttempt(attempt({}), CALL);
    expect(clients()[1]!.attributes).toMatchObject({ 'gen_ai.provider.name': 'openai', 'server.address': 'api.example.test', 'server.port': 8443 });
  });

  it('sends upstream the trace context only, never the client\'s baggage', () => {
    api.propagation.setGlobalPropagator(
      new core.CompositePropagator({ propagators: [new core.W3CTraceContextPropagator(), new core.W3CBaggagePropagator()] }),
    );
    const clientTrace = '0af7651916cd43dd8448eb211c80319c';
    const ctx = context('chat', { model: 'main/primary' }, {
      traceparent: `00-${clientTrace}-b7ad6b7169203331-01`,
      baggage: 'user.email=alice%40corp.example',
    });
    const headers = tracing.start(ctx)!.beginAttempt(MAIN, CALL).headers;
    expect(Object.keys(headers)).toEqual(['traceparent']);
    expect(headers.traceparent).toMatch(new RegExp(`^00-${clientTrace}-[0-9a-f]{16}-01$`));
  });
});
