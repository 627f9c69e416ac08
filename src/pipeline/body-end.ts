/**
 * When an answer has ended: every plugin's onComplete runs once, after the last byte, an abort or
 * a short-circuit. A body that is not a stream ends when it is written. A stream the gateway
 * rendered itself (sseBody) reports its own end through a mark (the fast path): no second stream
 * around every chunk, and `.body` is never read (reading it turns srvx's FastResponse back into a
 * slow native Response). Any other stream, or one a plugin taps, is wrapped once.
 */
import type { GatewayContext } from './context.ts';

/** The mark of a body that reports its own end; its response carries a copy (see sseResponse). */
export const kOnBodyEnd = Symbol.for('gateway.onBodyEnd');
export type BodyEndListener = (aborted: boolean) => void;
export type ReportsEnd = { [kOnBodyEnd]?: (listener: BodyEndListener) => void };

/** Arranges `complete` for when `response` has ended; returns the response to send. */
export function onAnswerEnd(ctx: GatewayContext, response: Response, complete: (ctx: GatewayContext) => Promise<void>): Response {
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
  return new Response(observeBody(ctx, response.body!, () => complete(ctx)), response);
}

/** The single body wrapper: feeds taps, then fires completion at the end or on abort. */
function observeBody(ctx: GatewayContext, body: ReadableStream<Uint8Array>, done: () => Promise<void>): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let finished = false;
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
        } catch (error) {
          controller.error(error);
          finish(true);
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
