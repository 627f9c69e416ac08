/**
 * Native passthrough: a client that speaks an upstream's own wire format (the Messages API
 * ingress to a vendor_b upstream) has its body sent as it came, only the model renamed, so
 * nothing the chat shape cannot hold is lost (cache_control, thinking signatures, citations).
 *
 * The ingress still translates the body to chat (every pipeline step reads that), and marks the
 * chat request with the native body. The matching adapter sends the native body instead; the
 * attempt keeps producing chat completions and chunks (usage, cache, log and resume keep
 * working) and attaches the upstream's own JSON or SSE events to them, so the ingress's renderer
 * can re-emit those. Every mark is a symbol property: never serialised, hashed into a cache key
 * or sent upstream. The request's mark is not enumerable, so a copy of the request (a resume's
 * continuation, which adds a prefix the native body does not have) is translated, not native.
 */
import type { GatewayError } from '../kernel/errors.ts';
import type { ChatChunk, ChatCompletion, ChatRequest } from './openai-types.ts';
import type { SseEvent } from './types.ts';

export interface NativeRequest {
  /** The wire format the body is in (the adapter `type` that sends it as it is). */
  format: string;
  /** The client's body as parsed; the adapter renames `model` and sets `stream` on a copy. */
  body: Record<string, unknown>;
  /** The client's dialect headers to forward (`anthropic-beta`, `anthropic-version`). */
  headers: Record<string, string>;
  /**
   * Why the body cannot go to an upstream of another format (a field the chat translation cannot
   * carry): such a target is passed over, so one of the native format is tried instead.
   */
  refusal?: GatewayError;
}

const kNativeRequest = Symbol('gateway.nativeRequest');
const kNativeAnswer = Symbol('gateway.nativeAnswer');
const kNativeEvents = Symbol('gateway.nativeEvents');
const kNativeError = Symbol('gateway.nativeError');

/** Marks `request` (not enumerable: see the note at the top); returns it. */
export function withNativeRequest<T extends ChatRequest>(request: T, native: NativeRequest): T {
  Object.defineProperty(request, kNativeRequest, { value: native, enumerable: false, configurable: true });
  return request;
}

/** The native body a request carries, if any. */
export const nativeRequestOf = (request: ChatRequest): NativeRequest | undefined => (request as { [kNativeRequest]?: NativeRequest })[kNativeRequest];

/** The native body when it goes to an adapter of its own format, else undefined. */
export function nativeFor(request: ChatRequest, adapterType: string): NativeRequest | undefined {
  const native = nativeRequestOf(request);
  return native?.format === adapterType ? native : undefined;
}

/** The upstream's own whole answer, attached to the completion translated from it. */
export function attachNativeAnswer(completion: ChatCompletion, body: unknown): void {
  (completion as { [kNativeAnswer]?: unknown })[kNativeAnswer] = body;
}

export const nativeAnswerOf = (completion: ChatCompletion): unknown => (completion as { [kNativeAnswer]?: unknown })[kNativeAnswer];

/**
 * The upstream's own events that a chunk stands for: on every chunk of a native stream (an
 * empty list on the chunks after the first of one event). Absent: the chunk was not native.
 */
export const nativeEventsOf = (chunk: ChatChunk): SseEvent[] | undefined => (chunk as { [kNativeEvents]?: SseEvent[] })[kNativeEvents];

/**
 * Wraps a stream translator so each chunk carries the upstream events behind it: the events that
 * produced no chunk (pings, block stops, signatures) ride on the next chunk, so none is lost
 * before the answer's end (the end marker always yields the usage chunk).
 */
export function keepNativeEvents<T extends { push(event: SseEvent): ChatChunk[]; readonly done: boolean }>(translator: T) {
  let pending: SseEvent[] = [];
  return {
    get done() {
      return translator.done;
    },
    push(event: SseEvent): ChatChunk[] {
      pending.push(event);
      const chunks = translator.push(event);
      for (const [i, chunk] of chunks.entries()) {
        (chunk as { [kNativeEvents]?: SseEvent[] })[kNativeEvents] = i === 0 ? pending : [];
      }
      if (chunks.length) pending = [];
      return chunks;
    },
  };
}

/** An upstream error answer of the native format, to pass through unchanged. */
export interface NativeError {
  status: number;
  body: string;
  headers: Record<string, string>;
}

/** Attaches the upstream's own error answer to an error; returns the error. */
export function attachNativeError<E extends object>(error: E, native: NativeError): E {
  (error as { [kNativeError]?: NativeError })[kNativeError] = native;
  return error;
}

export const nativeErrorOf = (error: object): NativeError | undefined => (error as { [kNativeError]?: NativeError })[kNativeError];

/** Copies a native error answer from one error to another (the attempt's to the client's). */
export function carryNativeError(from: object, to: GatewayError): GatewayError {
  const native = nativeErrorOf(from);
  return native ? attachNativeError(to, native) : to;
}
