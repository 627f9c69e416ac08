/**
 * Token estimates for calls whose upstream never reported usage (a client that disconnected,
 * a stream cut before its usage chunk). No tokenizer package is bundled, so this is a BPE-like
 * heuristic: a common word (up to 7 characters) is one token, a longer one a token per four
 * characters, punctuation, symbols and CJK characters one each. It errs slightly high, so a broken stream is never billed as zero
 * nor far below what the upstream charged.
 */

const PIECE = /\p{Script=Han}|\p{Script=Hiragana}|\p{Script=Katakana}|\p{Script=Hangul}|[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu;

/** Estimated tokens of `text` (0 for empty text). */
export function estimateTokens(text: string): number {
  if (!text) return 0;
  let tokens = 0;
  for (const match of text.matchAll(PIECE)) {
    const piece = match[0];
    tokens += piece.length <= 7 ? 1 : Math.ceil(piece.length / 4);
  }
  return tokens;
}

/** Estimated prompt tokens of chat messages: their text plus a few tokens of framing each. */
export function estimatePromptTokens(messages: unknown): number {
  if (!Array.isArray(messages)) return 0;
  let tokens = 3;
  for (const message of messages) {
    tokens += 4;
    const content = (message as { content?: unknown })?.content;
    if (typeof content === 'string') tokens += estimateTokens(content);
    else if (Array.isArray(content)) {
      for (const part of content) {
        const text = (part as { text?: unknown })?.text;
        if (typeof text === 'string') tokens += estimateTokens(text);
      }
    }
  }
  return tokens;
}
