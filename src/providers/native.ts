/**
 * Native passthrough: a client that speaks an upstream's own wire format (generateContent to a
 * vendor_c upstream) gets its body sent as it wrote it, and the upstream's own answer back, so
 * nothing is lost in a round trip through the chat shape.
 *
 * The ingress still translates the body to chat (routing, limits, cache, log and the other
 * upstream formats run on that); it marks the chat request with the native body under a symbol.
 * The adapter of that format sends the native body instead of translating the chat one, and
 * attaches the upstream's raw JSON (the whole answer, or one stream event) to the completion or
 * chunk it parsed, for the ingress's renderer to re-emit. Symbols: JSON.stringify (the cache key,
 * the cache, the log) never sees them, and the chat endpoint never sets or reads them.
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
const kNativeAnswer = Symbol.for('gateway.nativeAnswer');

type Marked = { [kNativeBody]?: NativeMark };
type Answered = { [kNativeAnswer]?: unknown };

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

/** Attaches the upstream's raw JSON to what was parsed from it (hidden from JSON.stringify). */
export function attachNativeAnswer<T extends object>(parsed: T, raw: unknown): T {
  Object.defineProperty(parsed, kNativeAnswer, { value: raw, enumerable: false, configurable: true });
  return parsed;
}

/** The upstream's raw JSON behind a completion or chunk, when a native upstream produced it. */
export const nativeAnswerOf = (parsed: object): unknown => (parsed as Answered)[kNativeAnswer];
