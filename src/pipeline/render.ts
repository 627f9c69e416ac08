/**
 * Turn the upstream step's result into the client's HTTP answer for each inference interface.
 * The route that creates a request's context gives it its renderer (`ctx.renderer`); chat
 * completions is the default.
 */
import type { Writable } from 'node:stream';
import { FastResponse } from 'srvx';
import type { GatewayContext, Renderer } from './context-types.ts';
import { kOnBodyEnd, type BodyEndListener, type ReportsEnd } from './body-end.ts';
import { streamInterrupted, toGatewayError, type GatewayError } from '../kernel/errors.ts';
import { keepLogFields } from '../kernel/logger.ts';
import { rawJsonOf } from './raw-json.ts';
import type { ChatChunk } from '../providers/openai-types.ts';

export type { Renderer } from './context-types.ts';

const encoder = new TextEncoder();
const DONE = encoder.encode('data: [DONE]\n\n');

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
};

/**
 * The mark of an answer rendered with the context's headers (plainHeaders): the pipeline then
 * does not add them again, nor touches `.headers` (which would build a web Headers).
 */
export const kContextHeaders = Symbol.for('gateway.contextHeaders');

/** Marks `response` as carrying the context's headers; returns it. */
export function withHeadersMark<R extends Response>(response: R): R {
  (response as R & { [kContextHeaders]?: true })[kContextHeaders] = true;
  return response;
}

/**
 * A whole JSON answer the gateway rendered: srvx's FastResponse (a native Response would wrap the
 * string in a web stream that srvx then reads back), with the context's headers, marked so.
 */
export function jsonAnswer(ctx: GatewayContext, text: string): Response {
  return withHeadersMark(new FastResponse(text, { status: 200, headers: plainHeaders(ctx, { 'content-type': 'application/json' }) }));
}

/** The answer's headers as a plain object: the context's, then `init` (srvx's FastResponse takes these as they are). */
export function plainHeaders(ctx: GatewayContext, init: Record<string, string>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of ctx.responseHeaders) headers[name] = value;
  return Object.assign(headers, init);
}

/** Where an SSE body is written: the Node response, or a PassThrough when read in-process. */
export type SseDestination = Pick<Writable, 'write' | 'end' | 'once' | 'off' | 'destroy' | 'destroyed' | 'writableNeedDrain'>;

/**
 * A body srvx pipes into the Node response itself (a "pipeable": `pipe`, and `abort` for a HEAD
 * request or a client gone before the first byte) rather than a web ReadableStream it would
 * read back chunk by chunk: no stream object, reader promise or pull per chunk on the hot path.
 * Read in-process (`response.body`, `.text()`), srvx pipes it into a PassThrough instead.
 */
export interface SseBody extends ReportsEnd {
  pipe<D extends SseDestination>(destination: D): D;
  abort(): void;
  destroy(): void;
}

/**
 * An SSE answer: srvx's FastResponse (no web Headers, no native Response to convert), carrying
 * its body's end mark so the pipeline never has to touch `.body`.
 */
export function sseResponse(ctx: GatewayContext, body: SseBody): Response {
  const init = { status: 200, headers: plainHeaders(ctx, SSE_HEADERS) };
  const response: Response & ReportsEnd = new FastResponse(body as unknown as BodyInit, init);
  response[kOnBodyEnd] = body[kOnBodyEnd];
  return withHeadersMark(response);
}

/**
 * Relays `source` into the destination as it arrives: the next item is read only when the
 * destination can take more (no buffering), and the client hanging up aborts the upstream.
 */
export function sseBody<T>(
  source: AsyncGenerator<T>,
  encode: (item: T) => Uint8Array | null,
  finish: (error: GatewayError | null) => Uint8Array | null,
  abort: () => void,
): SseBody {
  // srvx starts the relay when it writes the answer, outside the request: its lines keep the request's trace.
  const inRequest = keepLogFields();
  let onEnd: BodyEndListener | undefined;
  let ended = false;
  const end = (aborted: boolean) => {
    if (ended) return;
    ended = true;
    onEnd?.(aborted);
  };
  const cancel = () => {
    if (ended) return;
    end(true);
    abort();
    source.return(undefined).catch(() => {});
  };

  async function relay(destination: SseDestination) {
    destination.once('close', cancel); // gone before the end: the upstream call stops too
    let tail: Uint8Array | null;
    try {
      for (;;) {
        const next = await source.next();
        if (ended) return;
        if (next.done) {
          tail = finish(null);
          break;
        }
        const bytes = encode(next.value);
        if (!bytes) continue;
        // No turn of the event loop here: what is written before the source waits on the upstream
        // leaves in one socket write (Node's cork), and what is already there is the same answer.
        destination.write(bytes);
        if (destination.writableNeedDrain) await drained(destination);
        if (ended) return;
      }
    } catch (error) {
      if (ended) return;
      tail = finish(toGatewayError(error));
    }
    destination.off('close', cancel);
    if (destination.destroyed) return cancel();
    if (tail) destination.write(tail);
    destination.end();
    end(false);
  }

  return {
    [kOnBodyEnd]: (listener) => {
      onEnd = listener;
    },
    pipe(destination) {
      // Never an unhandled rejection: a relay that breaks ends the answer and the upstream call.
      inRequest(() => relay(destination)).catch(() => {
        cancel();
        destination.destroy();
      });
      return destination;
    },
    abort: cancel,
    destroy: cancel,
  };
}

/** Resolves once the destination wants more, or is gone. */
function drained(destination: SseDestination): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      destination.off('drain', done);
      destination.off('close', done);
      resolve();
    };
    destination.once('drain', done);
    destination.once('close', done);
  });
}

export const chatRenderer: Renderer = {
  json(ctx, completion) {
    const text = JSON.stringify(completion);
    if (ctx.outcome.response === completion) ctx.outcome.responseText = text; // the log reuses it
    return jsonAnswer(ctx, text);
  },
  stream(ctx, chunks, abort) {
    // A chunk read from the upstream's text carries its JSON (src/providers/openai-raw-chunks.ts),
    // used when nothing but the gateway's own steps stood between: no step wrapped this renderer
    // to change chunks in ways the renderer cannot see (the output guardrails do).
    const json = ctx.renderer === chatRenderer ? jsonOfChunk : jsonOfParsed;
    const body = sseBody(
      chunks,
      (batch) => {
        // One write per batch: its events leave together, as they came.
        let text = '';
        for (const chunk of batch) text += `data: ${json(chunk)}\n\n`;
        return encoder.encode(text);
      },
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

export const streamCutError = () => streamInterrupted();

const jsonOfParsed = (chunk: ChatChunk) => JSON.stringify(chunk);
const jsonOfChunk = (chunk: ChatChunk) => rawJsonOf(chunk) ?? JSON.stringify(chunk);

