import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { kOnBodyEnd } from './body-end.ts';
import { sseBody, sseResponse } from './render.ts';
import { createTestContext } from './test-context.ts';

const bytes = (text: string) => new TextEncoder().encode(text);
const turn = () => new Promise((resolve) => setImmediate(resolve));

/** A destination that records what was written, and can hold its write callbacks (backpressure). */
function recorder(order: string[], options: { hold: boolean } = { hold: false }) {
  const held: Array<() => void> = [];
  const destination = new Writable({
    highWaterMark: 1,
    write(chunk: Buffer, _encoding, callback) {
      order.push(`wrote ${chunk.toString()}`);
      if (options.hold) held.push(() => callback());
      else callback();
    },
  });
  return { destination, release: () => held.splice(0).forEach((callback) => callback()) };
}

describe('sseBody', () => {
  it('relays what is already there without waiting for a turn of the event loop, so Node sends it in one write', async () => {
    // An answer that came whole (one upstream read) must leave with its tail in one socket write:
    // Node coalesces what is written before the event loop turns (the HTTP response's cork).
    const order: string[] = [];
    async function* source() {
      for (const word of ['a', 'b', 'c']) {
        order.push(`read ${word}`);
        yield word;
      }
    }
    const body = sseBody(source(), bytes, () => bytes('.'), () => {});
    const { destination } = recorder(order);
    const wrote = destination.write.bind(destination);
    let turned = false;
    setImmediate(() => (turned = true));
    destination.write = ((chunk: Uint8Array) => {
      if (turned) order.push('(after a turn)');
      return wrote(chunk);
    }) as typeof destination.write;
    const finished = new Promise((resolve) => destination.once('finish', resolve));
    body.pipe(destination);
    await finished;
    expect(order).toEqual(['read a', 'wrote a', 'read b', 'wrote b', 'read c', 'wrote c', 'wrote .']);
  });

  it('reads the next item only when the destination can take more', async () => {
    const order: string[] = [];
    let reads = 0;
    async function* source() {
      for (const word of ['a', 'b', 'c']) {
        reads++;
        yield word;
      }
    }
    const holding = { hold: true };
    const { destination, release } = recorder(order, holding);
    sseBody(source(), bytes, () => null, () => {}).pipe(destination);
    await turn();
    await turn();
    expect(reads).toBe(1);
    expect(order).toEqual(['wrote a']);
    release();
    await turn();
    await turn();
    expect(reads).toBe(2);
    holding.hold = false;
    const finished = new Promise((resolve) => destination.once('finish', resolve));
    release();
    await finished;
    expect(order).toEqual(['wrote a', 'wrote b', 'wrote c']);
  });

  it('ends with the tail and reports a normal end once', async () => {
    async function* source() {
      yield 'x';
      yield 'y';
    }
    const ends: boolean[] = [];
    const body = sseBody(source(), bytes, (error) => bytes(error ? 'error' : '[DONE]'), () => {});
    body[kOnBodyEnd]!((aborted) => ends.push(aborted));
    const out = new PassThrough();
    const text = new Response(out as unknown as BodyInit).text();
    body.pipe(out);
    expect(await text).toBe('xy[DONE]');
    expect(ends).toEqual([false]);
  });

  it('writes the error tail when the source breaks after the first chunk', async () => {
    async function* source() {
      yield 'x';
      throw new Error('upstream cut');
    }
    const body = sseBody(source(), bytes, (error) => bytes(error ? `!${error.status}` : '[DONE]'), () => {});
    const out = new PassThrough();
    const text = new Response(out as unknown as BodyInit).text();
    body.pipe(out);
    expect(await text).toBe('x!500');
  });

  it('reports an aborted end and aborts the upstream when the client goes away', async () => {
    let stop: () => void = () => {};
    async function* source() {
      yield 'x';
      await new Promise<void>((resolve) => (stop = resolve)); // an upstream still thinking
      yield 'y';
    }
    let aborted = 0;
    const ends: boolean[] = [];
    const body = sseBody(source(), bytes, () => bytes('[DONE]'), () => {
      aborted++;
      stop();
    });
    body[kOnBodyEnd]!((wasAborted) => ends.push(wasAborted));
    const order: string[] = [];
    const { destination } = recorder(order);
    body.pipe(destination);
    await turn();
    destination.destroy();
    await turn();
    await turn();
    expect(ends).toEqual([true]);
    expect(aborted).toBe(1);
    expect(order).toEqual(['wrote x']);
  });

  it('aborts the upstream when it is never piped (HEAD request, client already gone)', async () => {
    let finalized = false;
    async function* source() {
      try {
        yield 'x';
      } finally {
        finalized = true;
      }
    }
    const generator = source();
    await generator.next(); // suspended at its first yield, as a committed stream is
    let aborted = false;
    const ends: boolean[] = [];
    const body = sseBody(generator, bytes, () => null, () => (aborted = true));
    body[kOnBodyEnd]!((wasAborted) => ends.push(wasAborted));
    body.abort();
    await turn();
    expect({ aborted, ends, finalized }).toEqual({ aborted: true, ends: [true], finalized: true });
  });

  it('ends the answer and the upstream call when writing breaks, without an unhandled rejection', async () => {
    async function* source() {
      yield 'x';
      yield 'y';
    }
    let aborted = false;
    const ends: boolean[] = [];
    const body = sseBody(source(), bytes, () => bytes('[DONE]'), () => (aborted = true));
    body[kOnBodyEnd]!((wasAborted) => ends.push(wasAborted));
    const destination = new PassThrough();
    destination.write = (() => {
      throw new Error('socket gone wrong');
    }) as typeof destination.write;
    const closed = new Promise((resolve) => destination.once('close', resolve));
    body.pipe(destination);
    await closed;
    expect({ aborted, ends, destroyed: destination.destroyed }).toEqual({ aborted: true, ends: [true], destroyed: true });
  });

  it('reads back in-process through the response, as tests and embedders do', async () => {
    async function* source() {
      yield 'one ';
      yield 'two';
    }
    const response = sseResponse(createTestContext(), sseBody(source(), bytes, () => bytes(' [DONE]'), () => {}));
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(await response.text()).toBe('one two [DONE]');
  });
});
