import { describe, expect, it } from 'vitest';
import { kOnBodyEnd, sseBody } from './render.ts';

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe('sseBody', () => {
  it('lets the event loop turn once after the first chunk, so it leaves before the buffered rest', async () => {
    const order: string[] = [];
    async function* source() {
      for (const word of ['a', 'b', 'c']) {
        order.push(`read ${word}`);
        yield word;
      }
    }
    const body = sseBody(source(), (w) => new TextEncoder().encode(w), () => null, () => {});
    const reader = body.getReader();
    const first = await reader.read();
    setImmediate(() => order.push('event loop turned'));
    const rest: string[] = [];
    for (let next = await reader.read(); !next.done; next = await reader.read()) rest.push(text(next.value));
    expect(text(first.value!)).toBe('a');
    expect(rest).toEqual(['b', 'c']);
    expect(order).toEqual(['read a', 'event loop turned', 'read b', 'read c']);
  });

  it('reports its end once, aborted when cancelled', async () => {
    async function* source() {
      yield 'x';
      yield 'y';
    }
    let aborted = false;
    const ends: boolean[] = [];
    const body = sseBody(source(), (w) => new TextEncoder().encode(w), () => null, () => (aborted = true));
    body[kOnBodyEnd]!((wasAborted) => ends.push(wasAborted));
    const reader = body.getReader();
    await reader.read();
    await reader.cancel();
    expect(ends).toEqual([true]);
    expect(aborted).toBe(true);
  });
});
