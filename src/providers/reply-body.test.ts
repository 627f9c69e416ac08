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
