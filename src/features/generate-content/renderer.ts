/**
 * The Renderer for endpoint `generate_content`: a whole answer as one GenerateContentResponse; a
 * stream as `data:` events (`alt=sse`, what the SDK asks for) or, without it, as one JSON array
 * written element by element, as Google streams it; errors in Google's shape. A stream that breaks
 * after its start ends with an error object (an event, or the array's last element), never as
 * if the answer were complete.
 */
import { FastResponse } from 'srvx';
import { kOnBodyEnd, type ReportsEnd } from '../../pipeline/body-end.ts';
import type { GatewayContext } from '../../pipeline/context.ts';
import { jsonAnswer, plainHeaders, sseBody, sseResponse, streamCutError, withHeadersMark, type Renderer, type SseBody } from '../../pipeline/render.ts';
import type { GatewayError } from '../../kernel/errors.ts';
import { generateResponse } from './answer.ts';
import { googleError, googleErrorResponse } from './errors.ts';
import { GenerateEvents, type GenerateEvent } from './stream.ts';

const encoder = new TextEncoder();

/** How a stream's events are framed: SSE events, or the elements of one JSON array. */
interface Framing {
  open: string;
  next: string;
  close: string;
  event(json: string): string;
}

const SSE: Framing = { open: '', next: '', close: '', event: (json) => `data: ${json}\r\n\r\n` };
const ARRAY: Framing = { open: '[', next: ',\r\n', close: ']', event: (json) => json };

/** Does the client read the stream as SSE (`alt=sse`)? */
const wantsSse = (ctx: GatewayContext) => new URL(ctx.request.url).searchParams.get('alt') === 'sse';

export const generateRenderer: Renderer = {
  json(ctx, completion) {
    const text = JSON.stringify(generateResponse(ctx, completion));
    ctx.outcome.responseText = text; // the log keeps what the client got, in Google's shape
    return jsonAnswer(ctx, text);
  },
  stream(ctx, chunks, abort) {
    const framing = wantsSse(ctx) ? SSE : ARRAY;
    const events = new GenerateEvents(ctx);
    let written = 0;
    const frame = (list: GenerateEvent[]) => {
      let text = '';
      for (const event of list) text += (written++ === 0 ? framing.open : framing.next) + framing.event(JSON.stringify(event));
      return text;
    };
    const body = sseBody(
      chunks,
      (batch) => {
        const text = frame(events.push(batch));
        return text ? encoder.encode(text) : null;
      },
      (error) => {
        let text: string;
        if (!error && ctx.outcome.finished) {
          const last = events.end();
          text = last ? frame([last]) : '';
        } else text = frame([failed(ctx, error)]);
        logAnswer(ctx);
        return encoder.encode((written === 0 ? framing.open : '') + text + framing.close);
      },
      abort,
    );
    return framing === SSE ? sseResponse(ctx, body) : arrayResponse(ctx, body);
  },
  error(ctx, error) {
    return googleErrorResponse(error, ctx.responseHeaders);
  },
};

/** The error object that ends a broken stream (recorded as the call's error). */
function failed(ctx: GatewayContext, error: GatewayError | null): GenerateEvent {
  const failure = error ?? streamCutError();
  ctx.outcome.error = { code: failure.code, message: failure.message, type: failure.type };
  return googleError(failure) as unknown as GenerateEvent;
}

/** The call log keeps a streamed answer as the one response a non-streamed call would have got. */
function logAnswer(ctx: GatewayContext) {
  const assembly = ctx.outcome.assembly;
  if (!assembly || assembly.empty) return;
  const completion = assembly.completion(ctx.outcome.usage);
  ctx.outcome.responseText = JSON.stringify(generateResponse(ctx, completion));
}

/** A streamed JSON array: like sseResponse, with the JSON content type. */
function arrayResponse(ctx: GatewayContext, body: SseBody): Response {
  const init = { status: 200, headers: plainHeaders(ctx, { 'content-type': 'application/json; charset=UTF-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' }) };
  const response: Response & ReportsEnd = new FastResponse(body as unknown as BodyInit, init);
  response[kOnBodyEnd] = body[kOnBodyEnd];
  return withHeadersMark(response);
}
