/**
 * The Renderer for endpoint `responses`: a whole chat completion becomes the 2.10 object, a
 * chunk stream becomes the Responses event stream (`event:` lines, `sequence_number`).
 */
import type { GatewayContext } from '../../pipeline/context.ts';
import { jsonAnswer, sseBody, sseResponse, type Renderer } from '../../pipeline/render.ts';
import { responseFromCompletion } from './object.ts';
import { saveResponse, storesResponse } from './store.ts';
import { responseEvents, type ResponseEvent } from './stream.ts';
import type { ResponseObject } from './types.ts';

const encoder = new TextEncoder();

/** The responses interface's renderer (registered by the responses feature). */
export const responsesRenderer: Renderer = {
  json(ctx, completion) {
    const response = responseFromCompletion(ctx, completion);
    void storeIfAsked(ctx, response);
    const text = JSON.stringify(response);
    ctx.outcome.responseText = text; // the log keeps what the client got, in the responses shape
    return jsonAnswer(ctx, text);
  },
  stream(ctx, chunks, abort) {
    let sequence = 0;
    const body = sseBody<ResponseEvent>(
      responseEvents(ctx, chunks, (final) => storeIfAsked(ctx, final)),
      (event) => {
        event.sequence_number = sequence++;
        return encoder.encode(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
      },
      () => null, // responseEvents already turned any failure into its closing events
      abort,
    );
    return sseResponse(ctx, body);
  },
};

/** Background calls are stored by their runner; a sync or streamed call as storesResponse decides. */
async function storeIfAsked(ctx: GatewayContext, response: ResponseObject): Promise<void> {
  if ((ctx.rawBody as { background?: boolean }).background === true || !storesResponse(ctx)) return;
  await saveResponse(ctx, response).catch(() => {}); // the answer stands even if the store is down
}
