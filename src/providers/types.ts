/**
 * The adapter contract: one module per upstream wire format, translating the OpenAI-shaped
 * chat request to the upstream's HTTP request and the upstream's answers back.
 */
import type { PrefixStyle } from '../config/types.ts';
import type { ChatChunk, ChatCompletion, ChatRequest } from './openai-types.ts';
import type { EmbeddingsWire } from './embeddings-types.ts';
import type { Target, UpstreamErrorInfo, UpstreamRequest } from './upstream-types.ts';

export type { Target, UpstreamErrorInfo, UpstreamRequest } from './upstream-types.ts';

/** One server-sent event as decoded from the upstream body. */
export interface SseEvent {
  event?: string;
  data: string;
}

/**
 * Turns upstream stream events into OpenAI chunks. Stateful per stream (tool-call indexes,
 * the message id); `end()` is called when the upstream body ends.
 */
export interface StreamTranslator {
  /** Chunks for one event; an empty array for keep-alives. Throws an UpstreamStreamError for an error event. */
  push(event: SseEvent): ChatChunk[];
  /** True once the upstream has sent its own end marker (or a finish that ends the answer). */
  readonly done: boolean;
}

export interface ProviderAdapter {
  /** The provider `type` (or custom adapter name) this adapter serves. */
  readonly type: string;
  /**
   * The upstream HTTP request for a chat request. Throws a GatewayError (a 400) for what this wire
   * format cannot honour: the fallback loop then passes over this target without calling it.
   */
  buildRequest(request: ChatRequest, target: Target, options: BuildOptions): UpstreamRequest;
  /** Translate a successful non-stream JSON body. `model` in the result is `target.requestedAs`. */
  parseResponse(body: unknown, target: Target): ChatCompletion;
  createStreamTranslator(target: Target, options: { includeUsage: boolean }): StreamTranslator;
  /** Normalise an upstream error body (text, maybe not JSON) and status. */
  parseError(status: number, bodyText: string): UpstreamErrorInfo;
  /** Can this wire format continue a partial assistant answer (prefill)? */
  readonly supportsPrefix: boolean;
  /**
   * The ways of asking for a continuation this format can send (config `prefix_style`). Absent:
   * only a trailing assistant message, which the adapter translates to its native prefill.
   */
  readonly prefixStyles?: readonly PrefixStyle[];
  /** The embeddings translation; absent when the wire format has no embeddings endpoint. */
  readonly embeddings?: EmbeddingsWire;
  /**
   * The wire format cannot omit the completion limit (the Messages API): a request that names
   * none is built with `defaultMaxTokens`. Other formats are never sent a limit the client did not ask for.
   */
  readonly requiresMaxTokens?: boolean;
}

/** The completion limit sent to a format that requires one (requiresMaxTokens) when nothing else sets it. */
export const REQUIRED_MAX_TOKENS_DEFAULT = 4096;

export interface BuildOptions {
  stream: boolean;
  /** For a format that requires a limit (requiresMaxTokens), when the request names none. */
  defaultMaxTokens?: number;
}

/** Thrown by a translator when the upstream reports an error inside the stream. */
export class UpstreamStreamError extends Error {
  constructor(
    message: string,
    readonly info: UpstreamErrorInfo,
  ) {
    super(message);
    this.name = 'UpstreamStreamError';
  }
}
