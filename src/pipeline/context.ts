/**
 * The per-request context every pipeline step sees. Cross-plugin state is in declared fields;
 * a plugin's private state goes in `locals` under its own name.
 */
import type { AccountSettings } from '../config/types.ts';
import type { ChatRequest } from '../providers/openai-types.ts';
import type { Target } from '../providers/types.ts';
import type { Runtime } from './runtime.ts';
import type { Snapshot } from '../config/snapshot.ts';
import { createOutcome, type Outcome } from './outcome.ts';
import type { Principal } from './principal.ts';
import type { ClientSignal } from '../http/client-signal.ts';
import { createRequestId } from '../kernel/request-id.ts';
import type { RequestTrace } from '../kernel/tracing.ts';
import { chatRenderer, type Renderer } from './render.ts';

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
  /** The request's trace while OpenTelemetry is on (src/kernel/tracing.ts), else null. */
  trace?: RequestTrace | null;
  /**
   * Writes the answer in the shape of the interface the request came in through. A step may wrap
   * it (the guardrails step checks a stream's chunks on their way to it).
   */
  renderer: Renderer;
}

export interface ContextInit {
  request: Request;
  endpoint: Endpoint;
  runtime: Runtime;
  snapshot: Snapshot;
  ip: string;
  body: ChatRequest;
  rawBody: unknown;
  rawBodyText?: string;
  signal: ClientSignal;
  id?: string;
  now?: number;
  /** The interface's renderer; chat completions' by default (embeddings answers are not rendered). */
  renderer?: Renderer;
}

export function createContext(init: ContextInit): GatewayContext {
  const startedAt = init.now ?? Date.now();
  const id = init.id ?? createRequestId(startedAt);
  const responseHeaders = new ResponseHeaders([['x-request-id', id]]);
  return {
    id,
    request: init.request,
    endpoint: init.endpoint,
    snapshot: init.snapshot,
    runtime: init.runtime,
    ip: init.ip,
    startedAt,
    body: init.body,
    rawBody: init.rawBody,
    rawBodyText: init.rawBodyText,
    get requestedModels() {
      return requestedModels(this.body);
    },
    settings: init.snapshot.config.settings,
    targets: [],
    locals: new Map(),
    outcome: createOutcome(),
    responseHeaders,
    taps: [],
    signal: init.signal,
    trace: null,
    renderer: init.renderer ?? chatRenderer,
  };
}

/** `model` then `fallbacks`, as the body says now (a default model applied included). */
export function requestedModels(body: ChatRequest): string[] {
  const fallbacks = Array.isArray(body.fallbacks) ? (body.fallbacks as string[]) : [];
  return body.model ? [body.model, ...fallbacks] : [...fallbacks];
}

/**
 * The headers a step adds to the answer: a Map with case-insensitive names (stored lower-case).
 * A web `Headers` validates and sorts on every use, which showed on the hot path.
 */
export class ResponseHeaders extends Map<string, string> {
  constructor(entries?: Iterable<readonly [string, string]>) {
    super();
    if (entries) for (const [name, value] of entries) this.set(name, value);
  }
  override set(name: string, value: string): this {
    return super.set(name.toLowerCase(), String(value));
  }
  override get(name: string): string | undefined {
    return super.get(name.toLowerCase());
  }
  override has(name: string): boolean {
    return super.has(name.toLowerCase());
  }
  override delete(name: string): boolean {
    return super.delete(name.toLowerCase());
  }
}

/** Register a stream observer: the pipeline owns the single body wrapper that calls it. */
export function tapStream(ctx: GatewayContext, tap: StreamTap) {
  ctx.taps.push(tap);
}
