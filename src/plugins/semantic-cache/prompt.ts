/**
 * What the semantic cache compares: the last user turn's text (embedded), inside a partition
 * that pins everything else. The partition hashes the account, the client's prompt_cache_key,
 * the model, every earlier message (system prompt and history), the tools and every sampling
 * parameter, so two prompts can only match when nothing but the last turn's wording differs.
 */
import { createHash } from 'node:crypto';
import type { GatewayContext } from '../../pipeline/context.ts';
import type { ChatMessage } from '../../providers/openai-types.ts';

/** Fields that do not change the answer (or are the prompt itself). */
const NOT_PARAMETERS = new Set(['messages', 'stream', 'stream_options', 'user', 'metadata', 'prompt_cache_key', 'fallbacks']);

export interface SemanticPrompt {
  /** The text embedded: the last user turn. */
  text: string;
  /** Store key of the partition the prompt may be matched in. */
  partition: string;
}

/** The text of a user message (string content, or its text parts); null when it has other parts. */
function userText(message: ChatMessage | undefined): string | null {
  if (!message || message.role !== 'user') return null;
  if (typeof message.content === 'string') return message.content;
  if (!Array.isArray(message.content)) return null;
  const texts: string[] = [];
  for (const part of message.content) {
    if (part.type !== 'text' || typeof part.text !== 'string') return null; // an image is not worded alike
    texts.push(part.text);
  }
  return texts.join('\n');
}

/** The request's semantic prompt, or null when it has none (the last turn is not user text). */
export function semanticPrompt(ctx: GatewayContext): SemanticPrompt | null {
  const messages = ctx.body.messages;
  const text = userText(messages?.at(-1));
  if (text === null || !text.trim()) return null;
  const parameters: Record<string, unknown> = {};
  for (const key of Object.keys(ctx.body).sort()) if (!NOT_PARAMETERS.has(key)) parameters[key] = ctx.body[key];
  const hash = createHash('sha256');
  hash.update(ctx.endpoint).update('\0').update(ctx.principal?.accountId ?? '').update('\0');
  hash.update(typeof ctx.body.prompt_cache_key === 'string' ? ctx.body.prompt_cache_key : '').update('\0');
  hash.update(JSON.stringify(messages.slice(0, -1))).update('\0').update(JSON.stringify(parameters));
  return { text, partition: `gw:semcache:${hash.digest('hex')}` };
}
