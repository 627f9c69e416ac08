import { describe, expect, it } from 'vitest';
import { decodeSse, MAX_EVENT_CHARS, parseSseText, SseDecoder } from './sse.ts';
import { UpstreamStreamError } from './types.ts';

describe('SSE decoding', () => {
  it('splits events on LF, CRLF and CR line ends, joining multi-line data', () => {
    expect(parseSseText('data: a\n\ndata: b\r\n\r\nevent: x\rdata: c\rdata: d\r\r')).toEqual([
      { event: undefined, data: 'a' },
      { event: undefined, data: 'b' },
      { event: 'x', data: 'c\nd' },
    ]);
  });

  it('skips comments and keep-alive lines, and fields without data', () => {
    expect(parseSseText(': ping\n\nevent: ping\n\nretry: 100\ndata:x\n\n')).toEqual([{ event: undefined, data: 'x' }]);
  });

  it('keeps state across arbitrary chunk boundaries, including a split CRLF', () => {
    const decoder = new SseDecoder();
    const text = 'data: {"a":1}\r\n\r\ndata: {"b":2}\r\n\r\n';
    const events = [];
    for (const ch of text) events.push(...decoder.push(ch));
    events.push(...decoder.end());
    expect(events.map((e) => e.data)).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('emits a last event that lacks its blank line at the end of input', () => {
    expect(parseSseText('data: tail')).toEqual([{ event: undefined, data: 'tail' }]);
  });

  it('decodes a byte stream with multi-byte characters split across chunks', async () => {
    const bytes = new TextEncoder().encode('data: héllo 👋\n\n');
    async function* chunks() {
      for (let i = 0; i < bytes.length; i += 3) yield bytes.slice(i, i + 3);
    }
    const events = [];
    for await (const batch of decodeSse(chunks())) events.push(...batch);
    expect(events).toEqual([{ event: undefined, data: 'héllo 👋' }]);
  });

  it('passes the events one read completed on as one batch', async () => {
    async function* reads() {
      yield new TextEncoder().encode('data: a\n\ndata: b\n\ndata: c');
      yield new TextEncoder().encode('\n\n');
    }
    const batches = [];
    for await (const batch of decodeSse(reads())) batches.push(batch.map((event) => event.data));
    expect(batches).toEqual([['a', 'b'], ['c']]);
  });

  it('refuses an event or a line that grows past the limit instead of buffering it', () => {
    const decoder = new SseDecoder();
    decoder.push(`data: ${'a'.repeat(1000)}\n\n`); // ordinary events pass
    expect(() => decoder.push(`data: ${'b'.repeat(MAX_EVENT_CHARS)}`)).toThrow(UpstreamStreamError);
    const lines = new SseDecoder();
    expect(() => {
      for (let i = 0; i < 2000; i++) lines.push(`data: ${'c'.repeat(1000)}\n`); // data lines, never a blank one
    }).toThrow(/larger than/);
  });
});
