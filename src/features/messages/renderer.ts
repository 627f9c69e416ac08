/**
 * The Renderer for endpoint `messages`: a chat completion becomes the Messages API's message, a
 * chunk stream its event stream, an error its error shape (status, type, `request-id`). The log
 * keeps the answer in that shape too.
 */
import { jsonAnswer, sseBody, sseResponse, streamCutError, type Renderer } from '../../pipeline/render.ts';
import type { GatewayContext } from '../../pipeline/context.ts';
import { anthropicErrorBody, anthropicErrorResponse } from './errors.ts';
import { messageFromCompletion } from './from-chat.ts';
import { MessageEvents } from './stream.ts';

const encoder = new TextEncoder();

/** The model as the client wrote it (answers name it, whichever upstream served). */
const clientModel = (ctx: GatewayContext) => String((ctx.rawBody as { model?: unknown }).model ?? ctx.body.model);

export const messagesRenderer: Renderer = {
  json(ctx, completion) {
    const text = JSON.stringify(messageFromCompletion(completion, clientModel(ctx)));
    ctx.outcome.responseText = text;
    return jsonAnswer(ctx, text);
  },
  stream(ctx, chunks, abort) {
    const events = new MessageEvents(clientModel(ctx));
    const body = sseBody(
      chunks,
      (batch) => {
        const text = events.batch(batch);
        return text ? encoder.encode(text) : null;
      },
      (error) => {
        let tail: string;
        // Only a stream the upstream really finished looks finished (as on chat).
        if (!error && ctx.outcome.finished) tail = events.end();
        else {
          const failure = error ?? streamCutError();
          ctx.outcome.error = { code: failure.code, message: failure.message, type: failure.type };
          tail = events.error(anthropicErrorBody(failure).error, ctx.id);
        }
        if (events.message) ctx.outcome.responseText = JSON.stringify(events.message);
        return encoder.encode(tail);
      },
      abort,
    );
    return sseResponse(ctx, body);
  },
  error(ctx, error) {
    const headers: Record<string, string> = {};
    for (const [name, value] of ctx.responseHeaders) headers[name] = value;
    return anthropicErrorResponse(error, ctx.id, headers);
  },
};
