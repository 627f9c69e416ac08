/**
 * The compat stream's common events without JSON.parse or JSON.stringify. An OpenAI-style
 * upstream writes every chunk of a stream with the same frame (id, object, created, model,
 * system_fingerprint, …) and one choice holding a piece of content; parsing each such event and
 * serialising it again for a chat client took ~5 % of the main thread at 50 concurrent streams.
 *
 * Once one event of the stream has been parsed, its frame is known as the exact text
 * JSON.stringify gives it. An event that is that text followed by one of the few choice shapes
 * below, written as JSON.stringify writes them, is read by comparing text: the chunk built from it
 * equals what JSON.parse gives, and it carries the JSON the client would get (its model renamed),
 * so the chat renderer sends that instead of serialising the chunk again (src/pipeline/raw-json.ts).
 * Anything else (another key order, whitespace, an escape, tool calls, usage, an error) is parsed as before.
 */
import { markRawJson } from '../pipeline/raw-json.ts';
import type { ChatChunk } from './openai-types.ts';

const USAGE_NULL = ',"usage":null';
const OBFUSCATION = ',"obfuscation":"';

/**
 * What may follow the frame: one choice at index 0 whose delta is empty or holds only content,
 * with or without a finish_reason, then `usage: null` and OpenAI's `obfuscation` padding, each
 * optional, in this order: the shapes of every chunk but the first and the usage chunk. Strings
 * only as JSON.stringify writes them unchanged: no quote, backslash, control character or
 * surrogate (a lone one would be escaped; pairs are rare enough to be parsed).
 */
const CHOICE = /\{"index":0,"delta":\{(?:"content":"([^"\\\x00-\x1f\ud800-\udfff]*)")?\},"logprobs":null,"finish_reason":(?:null|"([a-z_]+)")\}\](,"usage":null)?(?:,"obfuscation":"([^"\\\x00-\x1f\ud800-\udfff]*)")?\}$/y;

/**
 * `text.startsWith(prefix)` for a prefix of ~100 characters: optimized by TurboFan, `startsWith`
 * with a search string that is not a constant compared the event (a slice of the decoded body)
 * character by character, ~330 ns an event; a slice compared whole takes ~45 (bench/README.md).
 */
const startsWithText = (text: string, prefix: string) => text.slice(0, prefix.length) === prefix;

/** A value JSON.parse gives anew for every event (an object would be shared between chunks). */
const primitive = (value: unknown) => value === null || typeof value !== 'object';

/** One stream's frame, learned from an event parsed whole. */
export class RawChunkReader {
  private constructor(
    /** The upstream's text up to and including `"choices":[`. */
    private readonly prefix: string,
    /** The same with the model renamed: what the client's JSON starts with. */
    private readonly renamedPrefix: string,
    /** The frame's keys and values before `choices`, the model renamed. */
    private readonly frame: Record<string, unknown>,
    private readonly model: string,
  ) {}

  /**
   * A reader for the rest of the stream, when `parsed` (JSON.parse of `data`, model not yet
   * renamed) starts with a frame written as JSON.stringify writes it; else null.
   */
  static learn(parsed: Record<string, unknown>, data: string, model: string): RawChunkReader | null {
    const frame: Record<string, unknown> = {};
    let sawModel = false;
    for (const key in parsed) {
      if (key === 'choices') break;
      if (!primitive(parsed[key])) return null;
      frame[key] = parsed[key];
      if (key === 'model') sawModel = true;
    }
    if (!sawModel || !Array.isArray(parsed.choices) || typeof frame.id !== 'string' || typeof frame.created !== 'number') return null;
    const prefix = `${JSON.stringify(frame).slice(0, -1)},"choices":[`;
    if (!startsWithText(data, prefix)) return null;
    if (frame.model === model) return new RawChunkReader(prefix, prefix, frame, model); // the usual case: no rename
    frame.model = model;
    return new RawChunkReader(prefix, `${JSON.stringify(frame).slice(0, -1)},"choices":[`, frame, model);
  }

  /** The chunk an event stands for when it has one of the shapes read here; else undefined. */
  read(data: string): ChatChunk | undefined {
    if (!startsWithText(data, this.prefix)) return undefined;
    CHOICE.lastIndex = this.prefix.length;
    const match = CHOICE.exec(data);
    if (match === null) return undefined;
    const [, content, finish = null, usage, obfuscation] = match;
    // The keys in the order JSON.parse would give them.
    const chunk = Object.assign({}, this.frame) as ChatChunk;
    // Unrenamed, the event is the client's text as it is (no new string to build, nor to flatten when cut).
    const text = this.renamedPrefix === this.prefix ? data : this.renamedPrefix + data.slice(this.prefix.length);
    // Counted from the end (only `"obfuscation":"…"}` may follow it): no search through the text.
    const usageAt = usage === undefined ? -1 : text.length - 1 - USAGE_NULL.length - (obfuscation === undefined ? 0 : OBFUSCATION.length + obfuscation.length + 1);
    markRawJson(chunk, { text, usageAt, id: chunk.id, created: chunk.created, model: this.model, content, finish });
    const delta = content === undefined ? {} : { content };
    chunk.choices = [{ index: 0, delta, logprobs: null, finish_reason: finish as ChatChunk['choices'][number]['finish_reason'] }];
    if (usage !== undefined) chunk.usage = null;
    if (obfuscation !== undefined) chunk.obfuscation = obfuscation;
    return chunk;
  }
}
