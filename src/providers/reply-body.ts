/**
 * The body of an upstream reply, fed chunk by chunk by the transport's undici dispatch handler
 * and read either whole (`text`, `json`) or as an async iterable (streams). It replaces
 * undici's stream-based body: no Readable per reply, which was the costliest part of a small
 * upstream call. A slow reader pauses the socket above HIGH_WATER buffered bytes
 * (backpressure); it resumes when the reader takes what was buffered.
 */
import type { Dispatcher } from 'undici';

const HIGH_WATER = 64 * 1024;

/**
 * The largest body read whole (a JSON answer or an error body). A chat answer of the longest
 * output any model offers is well under 2 MiB; more is an upstream gone wrong, and reading on
 * would only hold memory until the total deadline.
 */
export const MAX_WHOLE_BODY_BYTES = 16 * 1024 * 1024;

/** Thrown by `text()`/`json()` for a body past MAX_WHOLE_BODY_BYTES. */
export class BodyTooLargeError extends Error {
  readonly code = 'UPSTREAM_BODY_TOO_LARGE';
  constructor() {
    super(`The upstream's answer exceeded ${MAX_WHOLE_BODY_BYTES / 1024 / 1024} MiB.`);
    this.name = 'BodyTooLargeError';
  }
}

type Controller = Dispatcher.DispatchController;

export class ReplyBody implements AsyncIterable<Uint8Array> {
  #chunks: Buffer[] = [];
  #buffered = 0;
  #ended = false;
  #error: Error | null = null;
  #wake: (() => void) | null = null;
  #consumed = false;
  /** Read whole (`text`): never pause the socket for it. */
  #whole = false;

  constructor(private readonly controller: Controller) {}

  /** From the handler: one chunk of the body. */
  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.#chunks.push(chunk);
    this.#buffered += chunk.length;
    if (this.#whole && this.#buffered > MAX_WHOLE_BODY_BYTES) return this.destroy(new BodyTooLargeError());
    if (!this.#whole && this.#buffered > HIGH_WATER && !this.controller.paused) this.controller.pause();
    this.#notify();
  }

  /** From the handler: the body is complete. */
  end(): void {
    this.#ended = true;
    this.#notify();
  }

  /** From the handler: the body broke (connection lost, timeout, abort). */
  fail(error: Error): void {
    if (this.#ended) return;
    this.#error = error;
    this.#notify();
  }

  /** The whole body as UTF-8 text, once it has ended. */
  async text(): Promise<string> {
    this.#claim();
    // Buffering the whole body on purpose: the caller wants it all, so never pause for it.
    this.#whole = true;
    if (this.#buffered > MAX_WHOLE_BODY_BYTES) this.destroy(new BodyTooLargeError());
    if (this.controller.paused) this.controller.resume();
    while (!this.#ended) {
      if (this.#error) throw this.#error;
      await this.#next();
    }
    const chunks = this.#take();
    return chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  /** Stop reading: aborts the upstream call unless the body already ended. */
  destroy(error?: Error): void {
    this.#chunks = [];
    this.#buffered = 0;
    if (this.#ended || this.#error) return;
    this.#error = error ?? new Error('upstream reply body destroyed');
    if (!this.controller.aborted) this.controller.abort(this.#error);
    this.#notify();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array> {
    this.#claim();
    try {
      for (;;) {
        if (this.#chunks.length > 0) {
          // Everything that arrived since the last read, as one piece: an upstream writing each
          // event as its own HTTP chunk would otherwise cost a trip through every layer per event.
          const chunks = this.#take();
          if (this.controller.paused) this.controller.resume();
          yield chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
          continue;
        }
        if (this.#error) throw this.#error;
        if (this.#ended) return;
        await this.#next();
      }
    } finally {
      // A reader that leaves early (break, return) no longer wants the rest: free the call.
      this.destroy();
    }
  }

  #claim(): void {
    if (this.#consumed) throw new TypeError('upstream reply body already read');
    this.#consumed = true;
  }

  #take(): Buffer[] {
    const chunks = this.#chunks;
    this.#chunks = [];
    this.#buffered = 0;
    return chunks;
  }

  #next(): Promise<void> {
    return new Promise((resolve) => (this.#wake = resolve));
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }
}
