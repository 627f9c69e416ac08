/**
 * The spans of one request while tracing is on (tracing.ts starts the SDK), after the GenAI
 * semantic conventions: a SERVER span for the request (`chat <model>`, `embeddings <model>`),
 * continuing the client's trace context, and a CLIENT span per upstream call, from its sending to
 * the end of its answer: for a stream, its last chunk, a break or the client leaving. A target the
 * gateway passed over without calling it is an event on the request's span, not a call.
 *
 * Calls can be in flight at once (a hedged race): each is known by the signal it was sent with, so
 * each span gets its own result; the loser's ends as cancelled, and the request's span reports
 * the call that served.
 */
import type * as Api from '@opentelemetry/api';
import type { AttemptTrace, GatewayContext, RequestTrace, StreamEnd, Tracing } from './context-types.ts';
import type { Attempt } from './outcome.ts';
import type { ChatCompletion } from '../providers/openai-types.ts';
import type { Target } from '../providers/types.ts';
import { requestOutcome } from './request-outcome.ts';
import * as sc from '../kernel/semconv.ts';
import { providerName, reportedModelOf, targetAttributes } from './upstream-attributes.ts';

type Attributes = Record<string, string | number | boolean | string[] | undefined | null>;
type Usage = { prompt_tokens?: number; completion_tokens?: number };

/** `gateway.attempt.reason` of a hedge: the call before it had not sent its first token in time. */
const HEDGE_REASON = 'first_token_late';
const HEDGE_CANCELLED_MESSAGE = 'another target answered first: cancelled upstream as the loser of a hedged race';

/** The path of each inference interface with a fixed one, for `url.path`. */
const PATHS: Partial<Record<GatewayContext['endpoint'], string>> = {
  chat: '/api/v1/chat/completions',
  responses: '/api/v1/responses',
  embeddings: '/api/v1/embeddings',
  messages: '/api/v1/messages',
};

/**
 * The operation the client asked for, as the conventions name it: Google's generateContent has a
 * well-known value of its own; the Messages API, like chat and responses, is a chat.
 */
const OPERATIONS: Partial<Record<GatewayContext['endpoint'], string>> = {
  embeddings: sc.GEN_AI_OPERATION_EMBEDDINGS,
  generate_content: sc.GEN_AI_OPERATION_GENERATE_CONTENT,
};

const headerGetter: Api.TextMapGetter<Headers> = {
  keys: (headers) => [...headers.keys()],
  get: (headers, key) => headers.get(key) ?? undefined,
};

/** `upstream` propagates the trace context into upstream calls (never the client's baggage). */
export function createTracing(api: typeof Api, tracer: Api.Tracer, upstream: Api.TextMapPropagator): Tracing {
  return new OtelTracing(api, tracer, upstream);
}

class OtelTracing implements Tracing {
  constructor(
    readonly api: typeof Api,
    readonly tracer: Api.Tracer,
    readonly upstream: Api.TextMapPropagator,
  ) {}

  start(ctx: GatewayContext): RequestTrace | null {
    return this.guard(null, () => new OtelRequestTrace(this, ctx));
  }

  /** Tracing never fails a request: a throw in the SDK is reported through its diag logger. */
  guard<T>(fallback: T, work: () => T): T {
    try {
      return work();
    } catch (error) {
      this.api.diag.error('llm-gateway tracing failed', error);
      return fallback;
    }
  }
}

/** One upstream call's span, handed to call.ts. */
class UpstreamCall implements AttemptTrace {
  readonly headers: Record<string, string> = {};
  /** It opened a stream: its span outlives the attempt's record, until the relay ends it. */
  streaming = false;
  /** The model the upstream names in its answer. */
  reportedModel: string | undefined;

  /** Its span has ended: what the call still reports (a hedge loser's late answer) is not its result. */
  ended = false;

  constructor(
    readonly span: Api.Span,
    private readonly owner: OtelTracing,
  ) {}

  answered(body: unknown): void {
    if (!this.ended) this.owner.guard(undefined, () => this.noteModel(body));
  }

  used(usage: Usage | undefined): void {
    if (!this.ended) this.owner.guard(undefined, () => this.span.setAttributes(usageAttributes(usage)));
  }

  firstEvent(data: string): void {
    if (this.ended) return;
    this.owner.guard(undefined, () => {
      try {
        this.noteModel(JSON.parse(data));
      } catch {
        // not JSON (a keep-alive comment): no model to read
      }
    });
  }

  end(): void {
    this.ended = true;
    this.span.end();
  }

  streams(): void {
    this.streaming = true;
  }

  private noteModel(body: unknown) {
    this.reportedModel = reportedModelOf(body);
    if (this.reportedModel) this.span.setAttribute(sc.ATTR_GEN_AI_RESPONSE_MODEL, this.reportedModel);
  }
}

/** A no-op call when the SDK failed to start a span: call.ts still gets its object. */
const UNTRACED: AttemptTrace = { headers: {}, answered() {}, used() {}, firstEvent() {}, streams() {} };

class OtelRequestTrace implements RequestTrace {
  readonly traceId: string;
  readonly spanId: string;
  private readonly span: Api.Span;
  private readonly context: Api.Context;
  /** The request's operation (the SERVER span's). */
  private readonly operation: string;
  /** The upstream calls' operation: a model call is a chat (an embeddings one for embeddings), whatever the client's interface. */
  private readonly callOperation: string;
  /** The calls begun and not recorded yet, by the signal each was sent with (two during a hedge). */
  private readonly calls = new Map<object, UpstreamCall>();
  /** The call whose stream is being relayed, until its end. */
  private relayed: UpstreamCall | null = null;
  /** The model named by the upstream that served, once one has. */
  private servedModel: string | undefined;
  /** Why the next attempt happens: the error of the one before. */
  private lastError: string | null = null;

  constructor(
    private readonly owner: OtelTracing,
    ctx: GatewayContext,
  ) {
    const { api, tracer } = owner;
    const parent = api.propagation.extract(api.ROOT_CONTEXT, ctx.request.headers, headerGetter);
    this.operation = OPERATIONS[ctx.endpoint] ?? sc.GEN_AI_OPERATION_CHAT;
    this.callOperation = ctx.endpoint === 'embeddings' ? sc.GEN_AI_OPERATION_EMBEDDINGS : sc.GEN_AI_OPERATION_CHAT;
    const model = ctx.body.model;
    this.span = tracer.startSpan(
      model ? `${this.operation} ${model}` : this.operation,
      {
        kind: api.SpanKind.SERVER,
        startTime: ctx.startedAt,
        attributes: {
          [sc.ATTR_GEN_AI_OPERATION_NAME]: this.operation,
          [sc.ATTR_HTTP_REQUEST_METHOD]: ctx.request.method,
          // generateContent names the model and method in its path (never the key: a query parameter).
          [sc.ATTR_URL_PATH]: PATHS[ctx.endpoint] ?? new URL(ctx.request.url).pathname,
          [sc.ATTR_CLIENT_ADDRESS]: ctx.ip,
          'gateway.request.id': ctx.id,
          'gateway.endpoint': ctx.endpoint,
        },
      },
      parent,
    );
    this.context = api.trace.setSpan(parent, this.span);
    ({ traceId: this.traceId, spanId: this.spanId } = this.span.spanContext());
  }

  beginAttempt(target: Target, signal: object): AttemptTrace {
    return this.owner.guard(UNTRACED, () => this.begin(target, signal));
  }

  endAttempt(attempt: Attempt, signal?: object): void {
    this.owner.guard(undefined, () => this.record(attempt, signal));
  }

  passOver(attempt: Attempt): void {
    this.owner.guard(undefined, () => {
      this.span.addEvent('gateway.target.passed_over', defined({
        'gateway.provider.id': attempt.provider,
        'gateway.deployment': `${attempt.provider}/${attempt.upstreamModel}`,
        'gateway.attempt.kind': attempt.kind ?? 'first',
        'gateway.reason': attempt.errorCode,
      }));
      this.lastError = attempt.errorCode;
    });
  }

  endStream(end: StreamEnd): void {
    this.owner.guard(undefined, () => this.endRelayed(end));
  }

  end(ctx: GatewayContext): void {
    this.owner.guard(undefined, () => this.finish(ctx));
  }

  private begin(target: Target, signal: object): AttemptTrace {
    const { api, tracer, upstream } = this.owner;
    this.calls.get(signal)?.end(); // not recorded (a bug, or the client gone): closed all the same
    // What is known before the call goes out, so that even a call cut short carries it.
    const span = tracer.startSpan(
      `${this.callOperation} ${target.upstreamModel}`,
      { kind: api.SpanKind.CLIENT, attributes: defined({ ...targetAttributes(target), [sc.ATTR_GEN_AI_OPERATION_NAME]: this.callOperation }) },
      this.context,
    );
    const call = new UpstreamCall(span, this.owner);
    upstream.inject(api.trace.setSpan(this.context, span), call.headers, api.defaultTextMapSetter);
    this.calls.set(signal, call);
    return call;
  }

  private record(attempt: Attempt, signal: object | undefined): void {
    // Without a signal: a stream's break, after its call was recorded a success; it ends that same span.
    const call = (signal === undefined ? this.relayed : this.calls.get(signal)) ?? null;
    if (signal !== undefined) this.calls.delete(signal);
    const kind = attempt.kind ?? 'first';
    if (attempt.cancelled) return this.cancelled(call, kind);
    // error.type as the conventions have it: the gateway's code, else the HTTP status.
    const errorType = attempt.errorCode ?? (attempt.status >= 400 ? String(attempt.status) : attempt.status === 0 ? '_OTHER' : null);
    // A hedge is started because the first token is late, not because a call failed.
    const reason = kind === 'first' ? undefined : kind === 'hedged' ? HEDGE_REASON : this.lastError;
    this.lastError = errorType;
    if (!call) return;
    // A break keeps the span's 200, which the upstream did answer, and adds what broke.
    const midStream = call === this.relayed;
    call.span.setAttributes(defined(midStream ? { [sc.ATTR_ERROR_TYPE]: errorType } : {
      'gateway.attempt.kind': kind,
      'gateway.attempt.reason': reason,
      [sc.ATTR_HTTP_RESPONSE_STATUS_CODE]: attempt.status || undefined,
      [sc.ATTR_ERROR_TYPE]: errorType,
    }));
    if (errorType) call.span.setStatus({ code: this.owner.api.SpanStatusCode.ERROR, message: errorType });
    else this.servedModel = call.reportedModel;
    if (!errorType && call.streaming) {
      this.relayed = call; // its body is still to come: the relay ends it (endStream)
      return;
    }
    if (midStream) this.relayed = null;
    call.end();
  }

  /**
   * A call that lost a hedged race, aborted by the gateway: no failure of the upstream (its status
   * stays unset), an event says why it ended. It is no reason for a later attempt either.
   */
  private cancelled(call: UpstreamCall | null, kind: string): void {
    if (!call) return; // cancelled between its retries: its last call was recorded already
    call.span.setAttributes({ 'gateway.attempt.kind': kind, 'gateway.hedge.lost': true });
    if (kind === 'hedged') call.span.setAttribute('gateway.attempt.reason', HEDGE_REASON);
    call.span.addEvent('gateway.hedge.cancelled', { 'gateway.reason': HEDGE_CANCELLED_MESSAGE });
    call.end();
  }

  private endRelayed({ usage, aborted }: StreamEnd): void {
    const call = this.relayed;
    if (!call) return; // its break was recorded already, or it ended at the request's end
    this.relayed = null;
    call.span.setAttributes(defined({
      ...usageAttributes(usage),
      'gateway.aborted': aborted || undefined,
      [sc.ATTR_ERROR_TYPE]: aborted ? 'client_closed' : undefined,
    }));
    call.end();
  }

  private finish(ctx: GatewayContext): void {
    const { api } = this.owner;
    const { outcome, principal } = ctx;
    // Calls never recorded, or a stream the client left before the relay noticed: closed all the same.
    for (const call of this.calls.values()) {
      call.span.setAttribute(sc.ATTR_ERROR_TYPE, ctx.signal.aborted ? 'client_closed' : 'unknown');
      call.end();
    }
    this.calls.clear();
    this.endRelayed({ aborted: outcome.aborted || ctx.signal.aborted });
    const model = ctx.body.model;
    if (model) this.span.updateName(`${this.operation} ${model}`);
    const chat = ctx.endpoint !== 'embeddings';
    const completion = outcome.streamed || !chat ? undefined : (outcome.response as ChatCompletion | undefined);
    const finishReasons = completion?.choices?.map((choice) => choice.finish_reason).filter((r): r is NonNullable<typeof r> => !!r);
    const served = outcome.served && ctx.snapshot.providers.get(outcome.served.provider);
    this.span.setAttributes(defined({
      [sc.ATTR_GEN_AI_REQUEST_MODEL]: model,
      // Sampling parameters mean nothing to an embeddings request.
      [sc.ATTR_GEN_AI_REQUEST_MAX_TOKENS]: chat ? ctx.body.max_tokens : undefined,
      [sc.ATTR_GEN_AI_REQUEST_TEMPERATURE]: chat ? ctx.body.temperature : undefined,
      [sc.ATTR_GEN_AI_REQUEST_TOP_P]: chat ? ctx.body.top_p : undefined,
      [sc.ATTR_GEN_AI_PROVIDER_NAME]: served ? providerName(served) : outcome.served?.provider,
      [sc.ATTR_GEN_AI_RESPONSE_MODEL]: this.servedModel ?? outcome.served?.upstreamModel,
      [sc.ATTR_GEN_AI_RESPONSE_ID]: completion?.id ?? (outcome.assembly?.responseId || undefined),
      [sc.ATTR_GEN_AI_RESPONSE_FINISH_REASONS]: finishReasons?.length ? finishReasons : outcome.finishReason ? [outcome.finishReason] : undefined,
      ...usageAttributes(outcome.usage),
      'gateway.provider.id': outcome.served?.provider,
      'gateway.account.id': principal?.accountId,
      'gateway.api_key.id': principal?.key?.id,
      'gateway.group.id': principal?.groupId,
      'gateway.stream': chat && ctx.body.stream === true,
      'gateway.cache': outcome.cache,
      'gateway.attempts': outcome.attempts.length,
      'gateway.aborted': outcome.aborted || undefined,
      [sc.ATTR_HTTP_RESPONSE_STATUS_CODE]: outcome.status,
      [sc.ATTR_ERROR_TYPE]: outcome.error?.code ?? outcome.error?.type,
    }));
    // A stream that broke after its 200 failed as surely as a 5xx did.
    if (requestOutcome(outcome) === 'server_error') this.span.setStatus({ code: api.SpanStatusCode.ERROR, message: outcome.error?.message });
    this.span.end(ctx.startedAt + outcome.durationMs);
  }
}

function usageAttributes(usage: Usage | undefined): Api.Attributes {
  return defined({ [sc.ATTR_GEN_AI_USAGE_INPUT_TOKENS]: usage?.prompt_tokens, [sc.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: usage?.completion_tokens });
}

function defined(attributes: Attributes): Api.Attributes {
  const out: Api.Attributes = {};
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined && value !== null) out[key] = value;
  return out;
}
