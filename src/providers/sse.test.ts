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

  it('drops the byte order mark at the start of the stream, split across reads too, and keeps one later on', async () => {
    const bytes = new TextEncoder().encode('\ufeffdata: a\n\ndata: \ufeffb\n\n');
    async function* reads() {
      yield bytes.slice(0, 1);
      yield bytes.slice(1, 5);
      yield bytes.slice(5);
    }
    const events = [];
    for await (const batch of decodeSse(reads())) events.push(...batch.map((event) => event.data));
    expect(events).toEqual(['a', '\ufeffb']);
  });

  it('reads invalid UTF-8 as TextDecoder does (U+FFFD), also when it ends the stream', async () => {
    const bytes = Uint8Array.from([...new TextEncoder().encode('data: a'), 0xff, 0xc3, 0x28, ...new TextEncoder().encode('\n\ndata: z'), 0xe2, 0x82]);
    async function* reads() {
      for (let i = 0; i < bytes.length; i += 2) yield bytes.slice(i, i + 2);
    }
    const events = [];
    for await (const batch of decodeSse(reads())) events.push(...batch.map((event) => event.data));
    expect(events).toEqual(parseSseText(new TextDecoder().decode(bytes)).map((event) => event.data));
    expect(events).toEqual(['a\ufffd\ufffd(', 'z\ufffd']);
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
