/**
 * The types of the per-request context (context.ts builds it), apart from what builds it so that
 * the renderers and the tracing it refers to can name it without a loop back to context.ts.
 */
import type { AccountSettings } from '../config/types.ts';
import type { Snapshot } from '../config/snapshot.ts';
import type { ClientSignal } from '../http/client-signal.ts';
import type { GatewayError } from '../kernel/errors.ts';
import type { ChatChunk, ChatCompletion, ChatRequest } from '../providers/openai-types.ts';
import type { Target } from '../providers/types.ts';
import type { Attempt, Outcome } from './outcome.ts';
import type { Principal } from './principal.ts';
import type { ResponseHeaders } from './response-headers.ts';
import type { Runtime } from './runtime.ts';

/** Which inference interface the request came in through (drives rendering). */
export type Endpoint = 'chat' | 'responses' | 'embeddings' | 'messages' | 'generate_content';

export interface StreamTap {
  /** Each chunk of the response body as it passes (never delays it). */
  onChunk?(chunk: Uint8Array): void;
  onEnd?(): void;
}

export interface GatewayContext {
  readonly id: string;
  readonly request: Request;
  readonly endpoint: Endpoint;
  /** The snapshot this request started with; a reload never changes it. */
  readonly snapshot: Snapshot;
  readonly runtime: Runtime;
  readonly ip: string;
  readonly startedAt: number;
  /**
   * The chat-shaped request (the responses interface is translated to it before the pipeline);
   * on the embeddings endpoint the embeddings body (`model`, `input`, ...), which has no messages.
   */
  body: ChatRequest;
  /** The body as the client sent it. */
  readonly rawBody: unknown;
  /** Its JSON text as received, when the route read one (the call log stores it as is). */
  readonly rawBodyText?: string;
  /** Models the client asked for, primary first (`model` then `fallbacks`): derived from `body`. */
  readonly requestedModels: string[];
  principal?: Principal;
  /** The caller's account settings (defaults until auth resolves the account). */
  settings: AccountSettings;
  /** Ordered targets chosen by the route step, tried in turn by the upstream step. */
  targets: Target[];
  /** Set by the cache step when the request is cacheable. */
  cacheKey?: string;
  readonly locals: Map<string, unknown>;
  readonly outcome: Outcome;
  /** Headers every answer carries (rate-limit state, request id). */
  readonly responseHeaders: ResponseHeaders;
  readonly taps: StreamTap[];
  /** Aborted when the client disconnects. */
  readonly signal: ClientSignal;
  /** The request's trace while OpenTelemetry is on (src/pipeline/tracing.ts), else null. */
  trace?: RequestTrace | null;
  /**
   * Writes the answer in the shape of the interface the request came in through. A step may wrap
   * it (the guardrails step checks a stream's chunks on their way to it).
   */
  renderer: Renderer;
}

export interface Renderer {
  json(ctx: GatewayContext, completion: ChatCompletion): Response;
  /**
   * `chunks` yields batches (what one upstream read carried, never empty) and throws a
   * GatewayError when the stream breaks after the commit.
   */
  stream(ctx: GatewayContext, chunks: AsyncGenerator<ChatChunk[]>, abort: () => void): Response;
  /**
   * An error answer in the interface's own shape (the Messages API's, generateContent's). Absent:
   * the OpenAI shape. Headers the error carries (Retry-After) are kept.
   */
  error?(ctx: GatewayContext, error: GatewayError): Response;
}

/** The trace of one request, on `ctx.trace` while tracing is on. */
export interface RequestTrace {
  /** The ids of the request's span (hex), for the JSON log lines and the call-log row. */
  readonly traceId: string;
  readonly spanId: string;
  /**
   * Starts the span of an upstream call about to be sent with `signal`: the call's identity, as
   * calls may be in flight at once (a hedged race gives each its own signal).
   */
  beginAttempt(target: Target, signal: object): AttemptTrace;
  /**
   * Records what the call sent with `signal` came to (its span ends, unless it opened a stream:
   * that one stays open while relayed; a call cancelled as a hedge's loser ends as such), or,
   * without a signal, a break of the stream being relayed (its span ends with it).
   */
  endAttempt(attempt: Attempt, signal?: object): void;
  /** A target passed over without a call (circuit open, a request its format cannot carry): an event, not a span. */
  passOver(attempt: Attempt): void;
  /** The relayed stream's upstream body has ended (or was abandoned): its call's span ends. */
  endStream(end: StreamEnd): void;
  /** Ends the request span once the exchange is over (after the last streamed byte). */
  end(ctx: GatewayContext): void;
}

/** The span of one upstream call, as call.ts sees it. */
export interface AttemptTrace {
  /** What the upstream receives with the call: the span's W3C trace context, nothing else. */
  readonly headers: Record<string, string>;
  /** The upstream's JSON answer as it came (the model it names). */
  answered(body: unknown): void;
  /** The usage of the answer, in our shape. */
  used(usage: { prompt_tokens?: number; completion_tokens?: number } | undefined): void;
  /** The first event of the upstream's stream, as sent (the model it names). */
  firstEvent(data: string): void;
  /** The call opened a stream: it goes on while the relay reads the body, which ends it. */
  streams(): void;
}

export interface StreamEnd {
  /** The usage the upstream reported on this leg of the stream. */
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** Abandoned before its end: the client left. */
  aborted: boolean;
}

export interface Tracing {
  /** The request's trace (null if the SDK failed to start one: tracing never fails a request). */
  start(ctx: GatewayContext): RequestTrace | null;
}
