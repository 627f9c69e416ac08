/**
 * A stream translator made of its push function and a test for its end. A class rather than an
 * object literal with a `done` getter: each such literal got a hidden class of its own (the getter
 * is a new function every time), which made every site that reads `done` or calls `push`
 * megamorphic once a few streams had passed (bench/README.md, issue 37).
 */
import type { ChatChunk } from './openai-types.ts';
import type { SseEvent, StreamTranslator } from './types.ts';

export class TranslatorOf implements StreamTranslator {
  constructor(
    readonly push: (event: SseEvent) => ChatChunk[],
    private readonly ended: () => boolean,
  ) {}

  get done(): boolean {
    return this.ended();
  }
}
