import type { Dispatcher } from 'undici';
import { describe, expect, it } from 'vitest';
import { BodyTooLargeError, MAX_WHOLE_BODY_BYTES, ReplyBody } from './reply-body.ts';

/** A dispatch controller that records an abort, as undici's would stop the call. */
function controller() {
  const state = { paused: false, aborted: false, reason: undefined as unknown };
  const fakeController = {
    get paused() {
      return state.paused;
    },
    get aborted() {
      return state.aborted;
    },
    pause: () => void (state.paused = true),
    resume: () => void (state.paused = false),
    abort: (reason: unknown) => {
      state.aborted = true;
      state.reason = reason;
    },
  };
  return { fakeController: fakeController as unknown as Dispatcher.DispatchController, state };
}

describe('reply body read whole', () => {
  it('reads a body that ends', async () => {
    const { fakeController } = controller();
    const body = new ReplyBody(fakeController);
    const text = body.text();
    body.push(Buffer.from('{"ok":'));
    body.push(Buffer.from('true}'));
    body.end();
    expect(await text).toBe('{"ok":true}');
  });

  it('gives up on a body that grows past the limit, and stops the upstream call', async () => {
    const { fakeController, state } = controller();
    const body = new ReplyBody(fakeController);
    const text = body.text();
    const mib = Buffer.alloc(1024 * 1024, 'a');
    for (let sent = 0; sent <= MAX_WHOLE_BODY_BYTES && !state.aborted; sent += mib.length) body.push(mib);
    await expect(text).rejects.toBeInstanceOf(BodyTooLargeError);
    expect(state.aborted).toBe(true);
  });
});

describe('reply body read as a stream', () => {
  it('hands over what arrived since the last read as one piece, and every byte once', async () => {
    const { fakeController } = controller();
    const body = new ReplyBody(fakeController);
    const pieces: string[] = [];
    const reading = (async () => {
      for await (const piece of body) pieces.push(Buffer.from(piece).toString());
    })();
    // One socket read's worth of HTTP chunks, pushed in one go as undici's parser does.
    body.push(Buffer.from('data: 1\n\n'));
    body.push(Buffer.from('data: 2\n\n'));
    await new Promise((resolve) => setImmediate(resolve));
    body.push(Buffer.from('data: 3\n\n'));
    body.end();
    await reading;
    expect(pieces).toEqual(['data: 1\n\ndata: 2\n\n', 'data: 3\n\n']);
  });

  it('pauses the socket for a slow reader and resumes it once the reader takes what waited', async () => {
    const { fakeController, state } = controller();
    const body = new ReplyBody(fakeController);
    const iterator = body[Symbol.asyncIterator]();
    for (let i = 0; i < 5; i++) body.push(Buffer.alloc(16 * 1024, 'x'));
    expect(state.paused).toBe(true);
    const first = await iterator.next();
    expect((first.value as Uint8Array).length).toBe(5 * 16 * 1024);
    expect(state.paused).toBe(false);
    await iterator.return(undefined);
  });
});
