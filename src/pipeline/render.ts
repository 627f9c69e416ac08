/**
 * Turn the upstream step's result into the client's HTTP answer for each inference interface.
 * The responses interface registers its own renderer; chat completions is the default.
 */
import { FastResponse } from 'srvx';
import type { ChatChunk, ChatCompletion } from '../providers/openai-types.ts';
import type { Endpoint, GatewayContext } from './context.ts';
import { GatewayError, toGatewayError } from './errors.ts';

export interface Renderer {
  json(ctx: GatewayContext, completion: ChatCompletion): Response;
  /** `chunks` throws a GatewayError when the stream breaks after the commit. */
  stream(ctx: GatewayContext, chunks: AsyncGenerator<ChatChunk>, abort: () => void): Response;
}

const encoder = new TextEncoder();
const DONE = encoder.encode('data: [DONE]\n\n');

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
};

/** The answer's headers as a plain object: the context's, then `init` (srvx's FastResponse takes these as they are). */
export function plainHeaders(ctx: GatewayContext, init: Record<string, string>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of ctx.responseHeaders) headers[name] = value;
  return Object.assign(headers, init);
}

/**
 * Marks a body that reports its own end: the pipeline registers its completion callback here
 * instead of wrapping the body in a second stream (one web stream per chunk, not two).
 */
export const kOnBodyEnd = Symbol.for('gateway.onBodyEnd');
export type BodyEndListener = (aborted: boolean) => void;
/** The mark: an SSE body carries it, and its response a copy (see sseResponse). */
export type ReportsEnd = { [kOnBodyEnd]?: (listener: BodyEndListener) => void };
export type SelfReportingBody = ReadableStream<Uint8Array> & ReportsEnd;

/**
 * An SSE answer: srvx's FastResponse (no web Headers, no native Response to convert), carrying
 * its body's end mark so the pipeline never has to touch `.body`.
 */
export function sseResponse(ctx: GatewayContext, body: SelfReportingBody): Response {
  const response: Response & ReportsEnd = new FastResponse(body, { status: 200, headers: plainHeaders(ctx, SSE_HEADERS) });
  response[kOnBodyEnd] = body[kOnBodyEnd];
  return response;
}

/** Pull-based SSE body: a chunk is encoded only when the client can take it (no buffering). */
export function sseBody<T>(
  source: AsyncGenerator<T>,
  encode: (item: T) => Uint8Array | null,
  finish: (error: GatewayError | null) => Uint8Array | null,
  abort: () => void,
): SelfReportingBody {
  let onEnd: BodyEndListener | undefined;
  let ended = false;
  /** 0 before the first chunk, 1 right after it, 2 once it has been let out. */
  let sent = 0;
  const end = (aborted: boolean) => {
    if (ended) return;
    ended = true;
    onEnd?.(aborted);
  };
  const body: SelfReportingBody = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        if (sent === 1) {
          // Node's res.write() corks the socket until the next tick, and the ticks wait for the
          // microtask queue: with more chunks already buffered, the first would leave only
          // after all of them were relayed. One turn of the event loop lets it go out now.
          sent++;
          await new Promise((resolve) => setImmediate(resolve));
        }
        const next = await source.next();
        if (next.done) {
          const tail = finish(null);
          if (tail) controller.enqueue(tail);
          controller.close();
          end(false);
          return;
        }
        const bytes = encode(next.value);
        if (bytes) {
          controller.enqueue(bytes);
          if (sent === 0) sent = 1;
        }
      } catch (error) {
        const tail = finish(toGatewayError(error));
        if (tail) controller.enqueue(tail);
        controller.close();
        end(false);
      }
    },
    async cancel() {
      end(true);
      abort();
      await source.return(undefined).catch(() => {});
    },
  }, { highWaterMark: 0 });
  body[kOnBodyEnd] = (listener) => {
    onEnd = listener;
  };
  return body;
}

export const chatRenderer: Renderer = {
  json(ctx, completion) {
    const text = JSON.stringify(completion);
    if (ctx.outcome.response === completion) ctx.outcome.responseText = text; // the log reuses it
    // A native Response would wrap the string in a web stream that srvx then reads back.
    return new FastResponse(text, { status: 200, headers: plainHeaders(ctx, { 'content-type': 'application/json' }) });
  },
  stream(ctx, chunks, abort) {
    const body = sseBody(
      chunks,
      (chunk) => encoder.encode(`data: ${JSON.stringify(chunk)}\n\n`),
      (error) => {
        // Only a stream the upstream really finished looks finished (CONTRACT: Routing).
        if (!error && ctx.outcome.finished) return DONE;
        const failure = error ?? streamCutError();
        ctx.outcome.error = { code: failure.code, message: failure.message, type: failure.type };
        return encoder.encode(`data: ${JSON.stringify(failure.toJSON())}\n\n`);
      },
      abort,
    );
    return sseResponse(ctx, body);
  },
};

export const streamCutError = () =>
  new GatewayError(502, 'upstream_error', 'The upstream ended the stream before finishing the answer.', {
    code: 'stream_interrupted',
  });

const renderers = new Map<Endpoint, Renderer>([['chat', chatRenderer]]);

export function registerRenderer(endpoint: Endpoint, renderer: Renderer) {
  renderers.set(endpoint, renderer);
}

export function rendererFor(endpoint: Endpoint): Renderer {
  return renderers.get(endpoint) ?? chatRenderer;
}
