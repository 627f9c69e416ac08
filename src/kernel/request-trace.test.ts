import * as api from '@opentelemetry/api';
import * as core from '@opentelemetry/core';
import * as sdk from '@opentelemetry/sdk-trace';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createContext, type Endpoint } from '../pipeline/context.ts';
import type { Attempt } from '../pipeline/outcome.ts';
import { testConfig, testRuntime } from '../pipeline/test-context.ts';
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

const exporter = new sdk.InMemorySpanExporter();
const provider = new sdk.TracerProvider({ spanProcessors: [new sdk.SimpleSpanProcessor({ exporter })] });
const tracing = createTracing(api, provider.getTracer('test'), new core.W3CTraceContextPropagator());

function context(endpoint: Endpoint, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return createContext({
    request: new Request(`http://localhost/api/v1/${endpoint}`, { method: 'POST', headers }),
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
    const call = trace.beginAttempt(MAIN);
    call.firstEvent('{"id":"c1","object":"chat.completion.chunk","model":"primary-2024-08-06","choices":[]}');
    call.streams();
    trace.endAttempt(attempt({}));
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
    trace.beginAttempt(MAIN).streams();
    trace.endAttempt(attempt({}));
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
    trace.beginAttempt(MAIN).streams();
    trace.endAttempt(attempt({}));
    trace.endStream({ aborted: true });
    Object.assign(ctx.outcome, { status: 200, streamed: true, aborted: true });
    trace.end(ctx);
    expect(clients()[0]!.attributes).toMatchObject({ 'gateway.aborted': true, 'error.type': 'client_closed' });
    expect(clients()[0]!.status.code).toBe(api.SpanStatusCode.UNSET);
    expect(server().status.code).toBe(api.SpanStatusCode.UNSET);
  });

  it('records a target passed over as an event on the request span, not as an upstream call', () => {
    const ctx = context('chat', { model: 'msgs/claude', fallbacks: ['main/primary'] });
    const trace = tracing.start(ctx)!;
    trace.passOver(attempt({ provider: 'msgs', upstreamModel: 'claude', status: 0, errorCode: 'unsupported_parameter', latencyMs: 0, refused: true }));
    trace.beginAttempt(MAIN);
    trace.endAttempt(attempt({ kind: 'fallback' }));
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
    const call = trace.beginAttempt(MAIN);
    call.answered({ object: 'list', model: 'text-embedding-3-small', data: [] });
    call.used({ prompt_tokens: 2 });
    trace.endAttempt(attempt({}));
    Object.assign(ctx.outcome, { status: 200, served: { model: 'main/primary', provider: 'main', upstreamModel: 'primary' } });
    trace.end(ctx);
    expect(server().name).toBe('embeddings main/primary');
    expect(server().attributes).toMatchObject({ 'gen_ai.operation.name': 'embeddings', 'url.path': '/api/v1/embeddings' });
    expect(server().attributes).not.toHaveProperty('gen_ai.request.temperature');
    expect(clients()[0]!.name).toBe('embeddings primary');
    expect(clients()[0]!.attributes).toMatchObject({ 'gen_ai.operation.name': 'embeddings', 'gen_ai.usage.input_tokens': 2, 'gen_ai.response.model': 'text-embedding-3-small' });
  });

  it('gives an upstream span its model, provider and server from the start, even when the call is cut short', () => {
    const ctx = context('chat', { model: 'msgs/claude' });
    const trace = tracing.start(ctx)!;
    trace.beginAttempt(target('msgs', 'claude'));
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
    other.beginAttempt(MAIN);
    other.endAttempt(attempt({}));
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
    const headers = tracing.start(ctx)!.beginAttempt(MAIN).headers;
    expect(Object.keys(headers)).toEqual(['traceparent']);
    expect(headers.traceparent).toMatch(new RegExp(`^00-${clientTrace}-[0-9a-f]{16}-01$`));
  });
});
