/**
 * The texts of a request a guardrail reads, and a way to write a redacted one back: each chat
 * message's string content or text parts; on embeddings, the input strings.
 */
import type { ChatRequest } from '../../providers/openai-types.ts';

export interface RequestText {
  text: string;
  /** Writes `replacement` where this text was, into `body` (a copy the caller owns). */
  at: TextPlace;
}

export type TextPlace = { message: number; part?: number } | { input: number | null };

export function* requestTexts(body: ChatRequest): Generator<RequestText> {
  if (Array.isArray(body.messages)) {
    for (const [index, message] of body.messages.entries()) {
      const content = message.content as unknown;
      if (typeof content === 'string') yield { text: content, at: { message: index } };
      else if (Array.isArray(content)) {
        for (const [part, piece] of content.entries()) {
          if (piece && typeof piece === 'object' && typeof (piece as { text?: unknown }).text === 'string') yield { text: (piece as { text: string }).text, at: { message: index, part } };
        }
      }
    }
    return;
  }
  const input = (body as unknown as { input?: unknown }).input;
  if (typeof input === 'string') yield { text: input, at: { input: null } };
  else if (Array.isArray(input)) for (const [index, item] of input.entries()) if (typeof item === 'string') yield { text: item, at: { input: index } };
}

/**
 * A copy of `body` with the texts at `places` replaced: only the messages (or input) touched are
 * copied; the client's parsed body (the log's, the cache's) is left as it came.
 */
export function withTexts(body: ChatRequest, replaced: ReadonlyArray<{ at: TextPlace; text: string }>): ChatRequest {
  const copy = { ...body } as ChatRequest & { input?: unknown };
  if (Array.isArray(body.messages)) copy.messages = [...body.messages];
  else if (Array.isArray(copy.input)) copy.input = [...(copy.input as unknown[])];
  for (const { at, text } of replaced) {
    if ('input' in at) {
      if (at.input === null) copy.input = text;
      else (copy.input as unknown[])[at.input] = text;
      continue;
    }
    const message = { ...copy.messages[at.message]! };
    if (at.part === undefined) message.content = text;
    else {
      const parts = [...(message.content as unknown as Array<Record<string, unknown>>)];
      parts[at.part] = { ...parts[at.part], text };
      message.content = parts as typeof message.content;
    }
    copy.messages[at.message] = message;
  }
  return copy;
}
