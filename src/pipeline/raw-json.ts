/**
 * The JSON a chunk stands for, when an adapter read the chunk from the upstream's text (only the
 * compat one: src/providers/openai-raw-chunks.ts), so the chat renderer can send that text instead
 * of serialising the chunk again. Here, not with the adapter: the renderer reads the mark.
 */
import type { ChatChunk } from '../providers/openai-types.ts';

/** The JSON an event's chunk stands for, as the client gets it, and the values it was read with. */
export interface RawJson {
  /** The event's JSON with the model renamed, `"usage":null` included when the upstream sent it. */
  readonly text: string;
  /** Where `,"usage":null` starts in `text`, or -1 when the upstream sent no usage key. */
  readonly usageAt: number;
  readonly id: string;
  readonly created: number;
  readonly model: string;
  readonly content: string | undefined;
  readonly finish: string | null;
}

const kRawJson = Symbol('gateway.rawJson');
type Marked = ChatChunk & { [kRawJson]?: RawJson };

const USAGE_NULL = ',"usage":null';

/** Marks `chunk` with the JSON it was read from (under a symbol: never serialised). */
export function markRawJson(chunk: ChatChunk, raw: RawJson): void {
  (chunk as Marked)[kRawJson] = raw;
}

/**
 * The client's JSON for a chunk read from raw text, when nothing changed it since (a resumed leg's
 * id, a spliced overlap, carried usage, or a stripped usage key are all seen here); else undefined.
 */
export function rawJsonOf(chunk: ChatChunk): string | undefined {
  const raw = (chunk as Marked)[kRawJson];
  if (raw === undefined || chunk.id !== raw.id || chunk.created !== raw.created || chunk.model !== raw.model) return undefined;
  const choice = chunk.choices.length === 1 ? chunk.choices[0]! : undefined;
  if (choice === undefined || choice.delta?.content !== raw.content || choice.finish_reason !== raw.finish) return undefined;
  const { text, usageAt } = raw;
  if (chunk.usage === null) return usageAt >= 0 ? text : `${text.slice(0, -1)}${USAGE_NULL}}`; // stringify appends a new key
  if (chunk.usage !== undefined) return undefined;
  return usageAt < 0 ? text : text.slice(0, usageAt) + text.slice(usageAt + USAGE_NULL.length);
}
