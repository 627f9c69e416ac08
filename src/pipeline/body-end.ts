/**
 * When an answer has ended: every plugin's onComplete runs once, after the last byte, an abort or
 * a short-circuit. A body that is not a stream ends when it is written. A stream the gateway
 * rendered itself (sseBody) reports its own end through a mark (the fast path): no second stream
 * around every chunk, and `.body` is never read (reading it turns srvx's FastResponse back into a
 * slow native Response). Any other stream, or one a plugin taps, is wrapped once.
 */
import type { GatewayError } from '../kernel/errors.ts';
import type { GatewayContext } from './context-types.ts';

/** The mark of a body that reports its own end; its response carries a copy (see sseResponse). */
export const kOnBodyEnd = Symbol.for('gateway.onBodyEnd');
export type BodyEndListener = (aborted: boolean) => void;
export type ReportsEnd = { [kOnBodyEnd]?: (listener: BodyEndListener) => void };

/**
 * Arranges `complete` for when `response` has ended; returns the response to send. `failed` turns
 * what broke a stream after its headers left into the error its last event carries.
 */
export function onAnswerEnd(
  ctx: GatewayContext,
  response: Response,
  complete: (ctx: GatewayContext) => Promise<void>,
  failed: (ctx: GatewayContext, thrown: unknown) => GatewayError,
): Response {
  const reportsEnd = ctx.outcome.streamed ? (response as Response & ReportsEnd)[kOnBodyEnd] : undefined;
  if (!ctx.outcome.streamed || (!reportsEnd && !response.body)) {
    ctx.outcome.aborted = ctx.signal.aborted;
    // After the answer has been written: observers (log, metrics, settlement) stay off its latency.
    setImmediate(() => void complete(ctx));
    return response;
  }
  if (reportsEnd && ctx.taps.length === 0) {
    reportsEnd((aborted) => {
      ctx.outcome.aborted = aborted;
      void complete(ctx);
    });
    return response;
  }
  return new Response(observeBody(ctx, response.body!, () => complete(ctx), failed), response);
}

/** The single body wrapper: feeds taps, then fires completion at the end or on abort. */
function observeBody(
  ctx: GatewayContext,
  body: ReadableStream<Uint8Array>,
  done: () => Promise<void>,
  failed: (ctx: GatewayContext, thrown: unknown) => GatewayError,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let finished = false;
  let last: Uint8Array | undefined;
  const finish = (aborted: boolean) => {
    if (finished) return;
    finished = true;
    ctx.outcome.aborted = aborted;
    for (const tap of ctx.taps) tap.onEnd?.();
    void done();
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done: end, value } = await reader.read();
          if (end) {
            controller.close();
            finish(false);
            return;
          }
          for (const tap of ctx.taps) tap.onChunk?.(value);
          controller.enqueue(value);
          last = value;
        } catch (error) {
          if (ctx.signal.aborted) {
            controller.error(error);
            finish(true);
            return;
          }
          // The body broke (a step's transform threw), not the client: the headers are gone, so the
          // stream ends as a failed one does (CONTRACT: one last `data: {"error":...}` event).
          controller.enqueue(errorEvent(failed(ctx, error), last));
          controller.close();
          finish(false);
        }
      },
      async cancel(reason) {
        finish(true);
        await reader.cancel(reason).catch(() => {});
      },
    },
    { highWaterMark: 0 },
  );
}

const encoder = new TextEncoder();

/** The closing error event, after a blank line if the last chunk stopped inside an event. */
function errorEvent(error: GatewayError, last: Uint8Array | undefined): Uint8Array {
  const open = last !== undefined && !(last.at(-1) === 10 && last.at(-2) === 10);
  return encoder.encode(`${open ? '\n\n' : ''}data: ${JSON.stringify(error.toJSON())}\n\n`);
}
