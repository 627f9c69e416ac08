/**
 * Server-sent events decoding (WHATWG event-stream rules: LF, CR or CRLF line ends, `data:`
 * lines joined with LF, comments skipped). Incremental, so chunks are never buffered whole.
 */
import { UpstreamStreamError, type SseEvent } from './types.ts';

/**
 * The largest event (or unterminated line) accepted, in characters. A real chunk is a few hundred;
 * an event that grows past this without ending is an upstream gone wrong, not an answer.
 */
export const MAX_EVENT_CHARS = 1024 * 1024;

function eventTooLarge(): UpstreamStreamError {
  const message = `The upstream sent a stream event larger than ${MAX_EVENT_CHARS} characters.`;
  return new UpstreamStreamError(message, { status: 502, message, type: 'upstream_error', code: 'bad_upstream_response', param: null });
}

export class SseDecoder {
  private buffer = '';
  private data: string[] = [];
  private dataChars = 0;
  private event: string | undefined;

  /** Feed decoded text; returns the events it completed. */
  push(text: string): SseEvent[] {
    this.buffer += text;
    const events: SseEvent[] = [];
    let start = 0;
    for (;;) {
      const lf = this.buffer.indexOf('\n', start);
      const cr = this.buffer.indexOf('\r', start);
      let end: number;
      let next: number;
      if (cr !== -1 && (lf === -1 || cr < lf)) {
        // A CR at the very end may be the first half of a CRLF still in flight.
        if (cr === this.buffer.length - 1) break;
        end = cr;
        next = this.buffer[cr + 1] === '\n' ? cr + 2 : cr + 1;
      } else if (lf !== -1) {
        end = lf;
        next = lf + 1;
      } else break;
      this.line(this.buffer.slice(start, end), events);
      start = next;
    }
    this.buffer = this.buffer.slice(start);
    if (this.buffer.length + this.dataChars > MAX_EVENT_CHARS) throw eventTooLarge();
    return events;
  }

  /** End of input: a last event without its blank line still counts. */
  end(): SseEvent[] {
    const events: SseEvent[] = [];
    if (this.buffer.length) this.line(this.buffer.replace(/\r$/, ''), events);
    this.buffer = '';
    this.line('', events);
    return events;
  }

  private line(line: string, events: SseEvent[]) {
    if (line === '') {
      if (this.data.length) events.push({ event: this.event, data: this.data.join('\n') });
      this.data = [];
      this.dataChars = 0;
      this.event = undefined;
      return;
    }
    if (line.charCodeAt(0) === 58 /* ':' comment */) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') {
      this.data.push(value);
      this.dataChars += value.length;
    }
    else if (field === 'event') this.event = value;
  }
}

/** Decode a whole recorded stream (tests, fixtures). */
export function parseSseText(text: string): SseEvent[] {
  const decoder = new SseDecoder();
  return [...decoder.push(text), ...decoder.end()];
}

/**
 * Decode a byte stream into events as they arrive, one batch per read: the events a read
 * completed travel together (one hop through every layer above, not one per event).
 */
export async function* decodeSse(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseEvent[]> {
  const text = new TextDecoder();
  const decoder = new SseDecoder();
  for await (const bytes of body) {
    const events = decoder.push(text.decode(bytes, { stream: true }));
    if (events.length) yield events;
  }
  const last = [...decoder.push(text.decode()), ...decoder.end()];
  if (last.length) yield last;
}

/** Encode one `data:` event (and optional name) for the client. */
export function encodeSse(data: string, event?: string): string {
  return event ? `event: ${event}\ndata: ${data}\n\n` : `data: ${data}\n\n`;
}
