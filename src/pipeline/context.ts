/**
 * The per-request context every pipeline step sees. Cross-plugin state is in declared fields;
 * a plugin's private state goes in `locals` under its own name. Its types are in context-types.ts.
 */
import type { ChatRequest } from '../providers/openai-types.ts';
import type { Runtime } from './runtime.ts';
import type { Snapshot } from '../config/snapshot.ts';
import { createOutcome } from './outcome.ts';
import type { ClientSignal } from '../http/client-signal.ts';
import { createRequestId } from '../kernel/request-id.ts';
import { chatRenderer } from './render.ts';
import { ResponseHeaders } from './response-headers.ts';
import type { Endpoint, GatewayContext, Renderer, StreamTap } from './context-types.ts';

export type { Endpoint, GatewayContext, StreamTap } from './context-types.ts';
export { ResponseHeaders } from './response-headers.ts';

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
  return new PipelineContext(init);
}

/**
 * A class rather than an object literal: `requestedModels` is a getter on the prototype, where a
 * literal defined it anew on every request (a runtime call, ~1 % of the main thread), and every
 * field a step may set later is there from the start, so all contexts share one shape.
 */
class PipelineContext implements GatewayContext {
  readonly id: string;
  readonly request: Request;
  readonly endpoint: Endpoint;
  readonly snapshot: Snapshot;
  readonly runtime: Runtime;
  readonly ip: string;
  readonly startedAt: number;
  body: ChatRequest;
  readonly rawBody: unknown;
  readonly rawBodyText?: string;
  principal?: GatewayContext['principal'] = undefined;
  settings: GatewayContext['settings'];
  targets: GatewayContext['targets'] = [];
  cacheKey?: string = undefined;
  readonly locals = new Map<string, unknown>();
  readonly outcome = createOutcome();
  readonly responseHeaders: ResponseHeaders;
  readonly taps: StreamTap[] = [];
  readonly signal: ClientSignal;
  trace: GatewayContext['trace'] = null;
  renderer: Renderer;

  constructor(init: ContextInit) {
    this.startedAt = init.now ?? Date.now();
    this.id = init.id ?? createRequestId(this.startedAt);
    this.request = init.request;
    this.endpoint = init.endpoint;
    this.snapshot = init.snapshot;
    this.runtime = init.runtime;
    this.ip = init.ip;
    this.body = init.body;
    this.rawBody = init.rawBody;
    this.rawBodyText = init.rawBodyText;
    this.settings = init.snapshot.config.settings;
    this.responseHeaders = new ResponseHeaders([['x-request-id', this.id]]);
    this.signal = init.signal;
    this.renderer = init.renderer ?? chatRenderer;
  }

  get requestedModels(): string[] {
    return requestedModels(this.body);
  }
}

/** `model` then `fallbacks`, as the body says now (a default model applied included). */
export function requestedModels(body: ChatRequest): string[] {
  const fallbacks = Array.isArray(body.fallbacks) ? (body.fallbacks as string[]) : [];
  return body.model ? [body.model, ...fallbacks] : [...fallbacks];
}

/** Register a stream observer: the pipeline owns the single body wrapper that calls it. */
export function tapStream(ctx: GatewayContext, tap: StreamTap) {
  ctx.taps.push(tap);
}
