/**
 * The misbehaving answers of the mock (see behavior.ts): what an unwell upstream sends instead
 * of a clean JSON answer or event stream. server.ts asks these first and answers normally when
 * none applies.
 */
import type { ServerResponse } from 'node:http';
import type { Behavior } from './behavior.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ERROR = { error: { message: 'mock upstream overloaded', type: 'server_error', param: null, code: null } };

/** Resolves when `res` wants more or is gone; the listener that did not fire is removed. */
export function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done).off('close', done);
      resolve();
    };
    res.once('drain', done).once('close', done);
  });
}

/** Grow the body forever (until the reader goes away): 64 KiB every millisecond. */
async function growForever(res: ServerResponse, piece: () => string) {
  while (!res.destroyed && !res.writableEnded) {
    if (!res.write(piece())) await drainedOrClosed(res);
    await sleep(1);
  }
}

/**
 * A JSON answer, trickled, cut, stalled, truncated, malformed, an error in a 200, or endless, as
 * the behaviour says. Counts the body's thirds as its "chunks" for the cut/stall/truncate points.
 */
export async function sendJsonAnswer(res: ServerResponse, answer: unknown, behavior: Behavior): Promise<void> {
  const { endless, malformed, errorIn200, cutAfterChunks, stallAfterChunks, truncateAfterChunks, trickleMs } = behavior;
  const clean = !endless && !malformed && !errorIn200 && !trickleMs;
  if (clean && cutAfterChunks === undefined && stallAfterChunks === undefined && truncateAfterChunks === undefined) {
    res.writeHead(200, { 'content-type': 'application/json' });
    return void res.end(JSON.stringify(answer));
  }
  res.writeHead(200, { 'content-type': 'application/json' });
  if (behavior.endless) {
    res.write('{"id":"chatcmpl-endless","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"');
    return growForever(res, () => 'grow '.repeat(13_108));
  }
  const text = behavior.malformed ? '{"id": "chatcmpl-bad", "choices": [ this is not json' : JSON.stringify(behavior.errorIn200 ? ERROR : answer);
  const third = Math.ceil(text.length / 3);
  const pieces = [text.slice(0, third), text.slice(third, 2 * third), text.slice(2 * third)];
  for (const [index, piece] of pieces.entries()) {
    if (behavior.cutAfterChunks !== undefined && index >= behavior.cutAfterChunks) {
      await sleep(20);
      return void res.destroy();
    }
    if (behavior.stallAfterChunks !== undefined && index >= behavior.stallAfterChunks) return; // hold the socket open
    if (behavior.truncateAfterChunks !== undefined && index >= behavior.truncateAfterChunks) return void res.end();
    if (trickleMs && index > 0) await sleep(trickleMs);
    if (res.destroyed) return;
    res.write(piece);
  }
  res.end();
}

/** A stream fault that replaces the whole stream (an error or garbage in a 200): true when sent. */
export function sendBrokenStream(res: ServerResponse, behavior: Behavior): boolean {
  if (!behavior.errorIn200 && !behavior.malformed) return false;
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
  if (behavior.errorIn200) res.write(`data: ${JSON.stringify(ERROR)}\n\n`);
  else res.write('data: {not json\n\ndata: <html>502 Bad Gateway</html>\n\n');
  res.end();
  return true;
}

export { ERROR as MOCK_STREAM_ERROR };
