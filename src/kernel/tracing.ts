/**
 * OpenTelemetry traces, with the standard Node.js SDK and the GenAI semantic conventions.
 *
 * On only when OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set (and
 * OTEL_SDK_DISABLED is not true, OTEL_TRACES_EXPORTER not `none`); then the SDK reads every other
 * standard variable itself (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, OTEL_EXPORTER_OTLP_PROTOCOL,
 * _HEADERS, _TIMEOUT, OTEL_TRACES_SAMPLER, OTEL_PROPAGATORS, OTEL_BSP_*...). Off, nothing of
 * OpenTelemetry is loaded (the SDK is imported dynamically, and only here) and the request path pays
 * one null check per hook: `tracing` is null and `ctx.trace` stays null.
 *
 * Spans: one SERVER span per inference request (`chat <model>`: gen_ai.operation.name,
 * gen_ai.request.model, gen_ai.response.model, gen_ai.usage.*, gen_ai.response.finish_reasons, the
 * account, key and group ids), continuing the client's W3C `traceparent`; one CLIENT child span per
 * upstream attempt (provider, deployment, status, kind and the retry/fallback reason), whose context
 * is what the upstream receives as `traceparent`. The hooks: pipeline.ts (start, end), try-targets.ts
 * (an attempt begins), call.ts (its headers), attempts.ts (an attempt is recorded).
 */
import type * as Api from '@opentelemetry/api';
import type { GatewayContext } from '../pipeline/context.ts';
import type { Attempt } from '../pipeline/outcome.ts';
import type { Logger } from './logger.ts';
import type { ChatCompletion } from '../providers/openai-types.ts';
import type { Target } from '../providers/types.ts';

/** The trace of one request, on `ctx.trace` while tracing is on. */
export interface RequestTrace {
  /** Starts the span of an upstream attempt; answers the headers (traceparent...) to send with it. */
  beginAttempt(target: Target): Record<string, string>;
  /** Ends the attempt begun last with what it came to, or records one that made no call (circuit open, broken stream). */
  endAttempt(attempt: Attempt): void;
  /** Ends the request span once the exchange is over (after the last streamed byte). */
  end(ctx: GatewayContext): void;
}

export interface Tracing {
  /** The request's trace (null if the SDK failed to start one: tracing never fails a request). */
  start(ctx: GatewayContext): RequestTrace | null;
}

/** Non-null only while tracing is on: the request path's one check. */
export let tracing: Tracing | null = null;
let shutdown: (() => Promise<void>) | null = null;

/** Whether the environment asks for traces (the standard OTLP variables). */
export function tracingRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return false;
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  return !(env.OTEL_TRACES_EXPORTER ?? '').split(',').map((s) => s.trim()).includes('none');
}

/**
 * Starts the SDK when the environment asks for traces (once per process). The SDK itself reads
 * process.env, as every OpenTelemetry SDK does.
 */
export async function initTracing(logger: Logger, version: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  if (tracing || !tracingRequested(env)) return;
  const [api, { NodeSDK }] = await Promise.all([import('@opentelemetry/api'), import('@opentelemetry/sdk-node')]);
  const named = env.OTEL_SERVICE_NAME || /(^|,)\s*service\.name=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? '');
  const sdk = new NodeSDK({
    ...(named ? {} : { serviceName: 'llm-gateway' }),
    // Traces only: metrics are Prometheus' (/metrics), logs are the JSON lines on stderr.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [],
    // Spans are parented explicitly: no AsyncLocalStorage context manager on every promise.
    contextManager: null as unknown as Api.ContextManager,
  });
  sdk.start();
  shutdown = () => sdk.shutdown();
  tracing = new OtelTracing(api, api.trace.getTracer('llm-gateway', version));
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  logger.info('tracing on', { endpoint, protocol: env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL || 'http/protobuf' });
}

/** Exports the spans still buffered, then stops the SDK (on shutdown; a no-op when off). */
export async function shutdownTracing(): Promise<void> {
  const stop = shutdown;
  tracing = null;
  shutdown = null;
  await stop?.();
}

type Attributes = Record<string, string | number | boolean | string[] | undefined>;

const headerGetter: Api.TextMapGetter<Headers> = {
  keys: (headers) => [...headers.keys()],
  get: (headers, key) => headers.get(key) ?? undefined,
};

class OtelTracing implements Tracing {
  constructor(
    readonly api: typeof Api,
    readonly tracer: Api.Tracer,
  ) {}

  start(ctx: GatewayContext): RequestTrace | null {
    return this.guard(null, () => new OtelRequestTrace(this, ctx));
  }

  /** Tracing never fails a request: a throw in the SDK is reported once through its own diag logger. */
  guard<T>(fallback: T, work: () => T): T {
    try {
      return work();
    } catch (error) {
      this.api.diag.error('llm-gateway tracing failed', error);
      return fallback;
    }
  }
}

class OtelRequestTrace implements RequestTrace {
  private readonly span: Api.Span;
  private readonly context: Api.Context;
  private attempt: Api.Span | null = null;
  /** Why the next attempt happens: the error of the one before. */
  private lastError: string | null = null;

  constructor(
    private readonly owner: OtelTracing,
    ctx: GatewayContext,
  ) {
    const { api, tracer } = owner;
    const parent = api.propagation.extract(api.ROOT_CONTEXT, ctx.request.headers, headerGetter);
    const model = ctx.body.model;
    this.span = tracer.startSpan(
      model ? `chat ${model}` : 'chat',
      {
        kind: api.SpanKind.SERVER,
        startTime: ctx.startedAt,
        attributes: {
          'gen_ai.operation.name': 'chat',
          'http.request.method': ctx.request.method,
          'url.path': ctx.endpoint === 'chat' ? '/api/v1/chat/completions' : '/api/v1/responses',
          'client.address': ctx.ip,
          'gateway.request.id': ctx.id,
          'gateway.endpoint': ctx.endpoint,
        },
      },
      parent,
    );
    this.context = api.trace.setSpan(parent, this.span);
  }

  beginAttempt(target: Target): Record<string, string> {
    return this.owner.guard({}, () => this.begin(target));
  }

  endAttempt(attempt: Attempt): void {
    this.owner.guard(undefined, () => this.record(attempt));
  }

  end(ctx: GatewayContext): void {
    this.owner.guard(undefined, () => this.finish(ctx));
  }

  private begin(target: Target): Record<string, string> {
    const { api, tracer } = this.owner;
    this.attempt?.end(); // not recorded (a bug or the client gone): close it all the same
    this.attempt = tracer.startSpan(`chat ${target.upstreamModel}`, { kind: api.SpanKind.CLIENT }, this.context);
    const headers: Record<string, string> = {};
    api.propagation.inject(api.trace.setSpan(this.context, this.attempt), headers);
    return headers;
  }

  private record(attempt: Attempt): void {
    const { api, tracer } = this.owner;
    const now = Date.now();
    const span = this.attempt ?? tracer.startSpan(`chat ${attempt.upstreamModel}`, { kind: api.SpanKind.CLIENT, startTime: now - attempt.latencyMs }, this.context);
    this.attempt = null;
    const kind = attempt.kind ?? 'first';
    // error.type as the conventions have it: the gateway's code, else the HTTP status.
    const errorType = attempt.errorCode ?? (attempt.status >= 400 ? String(attempt.status) : attempt.status === 0 ? '_OTHER' : null);
    span.setAttributes(defined({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': attempt.provider,
      'gen_ai.request.model': attempt.upstreamModel,
      'gateway.provider.id': attempt.provider,
      'gateway.deployment': `${attempt.provider}/${attempt.upstreamModel}`,
      'gateway.model': attempt.model,
      'gateway.attempt.kind': kind,
      'gateway.attempt.reason': kind === 'first' ? undefined : (this.lastError ?? undefined),
      'http.response.status_code': attempt.status || undefined,
      'error.type': errorType ?? undefined,
    }));
    if (errorType) span.setStatus({ code: api.SpanStatusCode.ERROR, message: errorType });
    span.end(now);
    this.lastError = errorType;
  }

  private finish(ctx: GatewayContext): void {
    const { api } = this.owner;
    const { outcome, principal } = ctx;
    if (this.attempt) {
      this.attempt.setAttribute('error.type', ctx.signal.aborted ? 'client_closed' : 'unknown');
      this.attempt.end();
      this.attempt = null;
    }
    const model = ctx.body.model;
    if (model) this.span.updateName(`chat ${model}`);
    const completion = outcome.streamed ? undefined : (outcome.response as ChatCompletion | undefined);
    const finishReasons = completion?.choices?.map((choice) => choice.finish_reason).filter((r): r is NonNullable<typeof r> => !!r);
    this.span.setAttributes(defined({
      'gen_ai.request.model': model,
      'gen_ai.request.max_tokens': ctx.body.max_tokens ?? undefined,
      'gen_ai.request.temperature': ctx.body.temperature ?? undefined,
      'gen_ai.request.top_p': ctx.body.top_p ?? undefined,
      'gen_ai.provider.name': outcome.served?.provider,
      'gen_ai.response.model': outcome.served?.upstreamModel,
      'gen_ai.response.id': completion?.id ?? (outcome.assembly?.responseId || undefined),
      'gen_ai.response.finish_reasons': finishReasons?.length ? finishReasons : outcome.finishReason ? [outcome.finishReason] : undefined,
      'gen_ai.usage.input_tokens': outcome.usage?.prompt_tokens,
      'gen_ai.usage.output_tokens': outcome.usage?.completion_tokens,
      'gateway.account.id': principal?.accountId,
      'gateway.api_key.id': principal?.key?.id,
      'gateway.group.id': principal?.groupId,
      'gateway.stream': ctx.body.stream === true,
      'gateway.cache': outcome.cache,
      'gateway.attempts': outcome.attempts.length,
      'gateway.aborted': outcome.aborted || undefined,
      'http.response.status_code': outcome.status,
      'error.type': outcome.error?.code ?? outcome.error?.type,
    }));
    if (outcome.status >= 500) this.span.setStatus({ code: api.SpanStatusCode.ERROR, message: outcome.error?.message });
    this.span.end(ctx.startedAt + outcome.durationMs);
  }
}

function defined(attributes: Attributes): Api.Attributes {
  const out: Api.Attributes = {};
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined && value !== null) out[key] = value;
  return out;
}
