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

/** Register a stream observer: the pipeline owns the single body wrapper that calls it. */
export function tapStream(ctx: GatewayContext, tap: StreamTap) {
  ctx.taps.push(tap);
}
