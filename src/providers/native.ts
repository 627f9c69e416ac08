/**
 * Native passthrough: a client that speaks an upstream's own wire format (the Messages API
 * ingress to a vendor_b upstream, generateContent to a vendor_c one) has its body sent as it
 * came, only the model renamed, so nothing the chat shape cannot hold is lost (cache_control,
 * thinking signatures, citations, safety settings).
 *
 * The ingress still translates the body to chat (every pipeline step reads that), and marks the
 * chat request with the native body. The matching adapter sends the native body instead; the
 * attempt keeps producing chat completions and chunks (usage, cache, log and resume keep
 * working) and attaches the upstream's own JSON or SSE events to them, so the ingress's renderer
 * can re-emit those. Every mark is a symbol property: never serialised, hashed into a cache key
 * or sent upstream. The request's mark is not enumerable, so a copy of the request (a resume's
 * continuation, which adds a prefix the native body does not have) is translated, not native.
 */
import { TranslatorOf } from './stream-translator.ts';
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
const kNativeAnswer = Symbol.for('gateway.nativeAnswer');
const kNativeEvents = Symbol('gateway.nativeEvents');
const kNativeError = Symbol('gateway.nativeError');

type Answered = { [kNativeAnswer]?: { format: string; raw: unknown } };

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

/**
 * Attaches the upstream's own JSON (a whole answer, or one generateContent stream event) to what
 * was parsed from it, with the wire format it is in (a symbol: never serialised); returns it.
 */
export function attachNativeAnswer<T extends object>(parsed: T, raw: unknown, format: string): T {
  (parsed as Answered)[kNativeAnswer] = { format, raw };
  return parsed;
}

/** The upstream's raw JSON behind a completion or chunk, when an upstream of `format` produced it. */
export function nativeAnswerOf(parsed: object, format: string): unknown {
  const answer = (parsed as Answered)[kNativeAnswer];
  return answer?.format === format ? answer.raw : undefined;
}

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
  return new TranslatorOf((event: SseEvent): ChatChunk[] => {
    pending.push(event);
    const chunks = translator.push(event);
    for (const [i, chunk] of chunks.entries()) {
      (chunk as { [kNativeEvents]?: SseEvent[] })[kNativeEvents] = i === 0 ? pending : [];
    }
    if (chunks.length) pending = [];
    return chunks;
  }, () => translator.done);
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

/*
 * The generateContent ingress marks the request differently: the mark is enumerable (the routing's
 * shallow copies keep it) and remembers the messages it stands for, so that a resumed stream's
 * continuation (other messages) is translated; the vendor_c adapter attaches each raw answer or
 * event itself (attachNativeAnswer above).
 */

/** The native body a chat request carries (see `withNativeBody`). */
interface NativeMark {
  /** The provider type whose wire format the body is in. */
  format: string;
  body: Record<string, unknown>;
  /**
   * The messages the body stands for. A request rebuilt with other messages (a resumed stream's
   * continuation, which adds the answer so far) no longer matches the body: it is translated.
   */
  messages: unknown;
}

const kNativeBody = Symbol.for('gateway.nativeBody');

type Marked = { [kNativeBody]?: NativeMark };

/**
 * Marks `request` (a chat request whose `messages` are set) as standing for `body` in `format`.
 * Enumerable, so that the shallow copies the routing makes (a default completion limit) keep it.
 */
export function withNativeBody<T extends { messages: unknown }>(request: T, format: string, body: Record<string, unknown>): T {
  (request as T & Marked)[kNativeBody] = { format, body, messages: request.messages };
  return request;
}

/** The native body to send to an upstream of `format`, when `request` still stands for it. */
export function nativeBodyFor(request: { messages: unknown }, format: string): Record<string, unknown> | undefined {
  const mark = (request as Marked)[kNativeBody];
  return mark && mark.format === format && mark.messages === request.messages ? mark.body : undefined;
}
