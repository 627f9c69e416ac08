/**
 * Small pieces every non-OpenAI adapter needs: ids, chunk framing, a whole answer's completion,
 * usage, data URLs and error field defaults (the fields an upstream cannot honour are in
 * chat-fields.ts).
 */
import { invalidValue } from '../kernel/errors.ts';
import type { ChatChunk, ChatCompletion, ContentPart, FinishReason, ToolCall, Usage } from './openai-types.ts';
import type { Target, UpstreamErrorInfo } from './types.ts';
import { UpstreamStreamError } from './types.ts';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A random base62 string (ids only, not secrets). */
export function randomId(length = 24): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  let out = '';
  for (const byte of bytes) out += ALPHABET[byte % ALPHABET.length];
  return out;
}

/** `chatcmpl-…`, the id shape OpenAI clients expect on completions and chunks. */
export const newCompletionId = () => `chatcmpl-${randomId()}`;
export const newToolCallId = () => `call_${randomId()}`;
export const nowSeconds = () => Math.floor(Date.now() / 1000);

export const trimSlash = (url: string) => url.replace(/\/+$/, '');

/** Content type plus the provider's extra headers, which every wire format forwards. */
export function jsonHeaders(target: Target, auth: Record<string, string>): Record<string, string> {
  const headers: Record<string, string> = Object.assign({ 'content-type': 'application/json' }, target.provider.headers);
  if (target.provider.api_key) Object.assign(headers, auth);
  return headers;
}

/** What a whole upstream answer said, read out of its own format. */
export interface AnswerParts {
  text: string;
  reasoning: string;
  toolCalls: ToolCall[];
}

/** The chat.completion of one whole answer (content null when it only called tools). */
export function completionOf(target: Target, answer: AnswerParts, finish: FinishReason, usage: Usage): ChatCompletion {
  const message: ChatCompletion['choices'][number]['message'] = {
    role: 'assistant',
    content: answer.text === '' && answer.toolCalls.length ? null : answer.text,
    refusal: null,
  };
  if (answer.toolCalls.length) message.tool_calls = answer.toolCalls;
  if (answer.reasoning) message.reasoning_content = answer.reasoning;
  return {
    id: newCompletionId(),
    object: 'chat.completion',
    created: nowSeconds(),
    model: target.requestedAs,
    choices: [{ index: 0, message, finish_reason: finish, logprobs: null }],
    usage,
  };
}

/** Build usage with the total OpenAI clients expect and the optional detail blocks. */
export function makeUsage(prompt: number, completion: number, details: { cached?: number; reasoning?: number } = {}): Usage {
  const usage: Usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  if (details.cached !== undefined) usage.prompt_tokens_details = { cached_tokens: details.cached };
  if (details.reasoning !== undefined) usage.completion_tokens_details = { reasoning_tokens: details.reasoning };
  return usage;
}

/** Frames chunks of one stream: one id, one `created`, the model as the client named it. */
export class ChunkFactory {
  readonly id = newCompletionId();
  readonly created = nowSeconds();
  constructor(readonly model: string) {}

  delta(delta: ChatChunk['choices'][number]['delta'], finishReason: FinishReason | null = null): ChatChunk {
    return {
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.model,
      choices: [{ index: 0, delta, finish_reason: finishReason }],
    };
  }

  /** The trailing usage chunk of `stream_options.include_usage`: no choices. */
  usage(usage: Usage): ChatChunk {
    return { id: this.id, object: 'chat.completion.chunk', created: this.created, model: this.model, choices: [], usage };
  }
}

/** `data:[<mediatype>][;base64],<data>` split into its parts; null for any other URL. */
export function parseDataUrl(url: string): { mediaType: string; data: string; base64: boolean } | null {
  const match = /^data:([^;,]*)((?:;[^;,]*)*?),(.*)$/s.exec(url);
  if (!match) return null;
  const base64 = /;base64$/i.test(match[2]);
  return { mediaType: match[1] || 'text/plain', data: match[3], base64 };
}

export const isHttpUrl = (url: string) => /^https?:\/\//i.test(url);

/** A message's content as a part list (strings become one text part; null becomes none). */
export function contentParts(content: string | ContentPart[] | null | undefined): ContentPart[] {
  if (content === null || content === undefined) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return content;
}

/** Only the text of a message's content, parts joined with a blank line between them. */
export function contentText(content: string | ContentPart[] | null | undefined): string {
  if (typeof content === 'string') return content;
  return contentParts(content)
    .filter((part): part is { type: 'text'; text: string } => part.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text)
    .join('\n\n');
}

export const toJsonArguments = (input: unknown) => JSON.stringify(input ?? {});

/** Parse a tool call's `arguments` string; a broken one is the client's error, never guessed at. */
export function parseArguments(text: string, param: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  try {
    const value = JSON.parse(text);
    if (value && typeof value === 'object' && !Array.isArray(value)) return value;
  } catch {
    // fall through to the refusal
  }
  throw invalidValue(`Tool call arguments must be a JSON object string.`, param);
}

/** The OpenAI error type for an HTTP status, when the upstream body says nothing usable. */
export function typeForStatus(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'upstream_error';
  return 'invalid_request_error';
}

/** Messages upstreams use when the prompt does not fit: fallbacks move on for this code. */
export const CONTEXT_LENGTH = /prompt is too long|context (?:length|window)|exceeds? (?:the )?(?:maximum|context)|too many (?:input )?tokens|input token count/i;

/** Parse JSON leniently: error bodies may be HTML or empty. */
export function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A body text short enough to quote in an error message. */
export const fallbackMessage = (status: number, bodyText: string) => bodyText.trim().slice(0, 200) || `Upstream answered HTTP ${status}.`;

/** The stream error for a frame that is not the JSON the wire format promises. */
export function badStreamFrame(data: string): UpstreamStreamError {
  const info: UpstreamErrorInfo = {
    status: 502,
    message: `The upstream sent a stream event that is not valid JSON: ${data.slice(0, 100)}`,
    type: 'upstream_error',
    code: 'bad_upstream_response',
    param: null,
  };
  return new UpstreamStreamError(info.message, info);
}

/** A non-stream body that is not the shape the wire format promises. */
export function badResponse(what: string): UpstreamStreamError {
  const info: UpstreamErrorInfo = {
    status: 502,
    message: `The upstream answered with an unexpected body: ${what}.`,
    type: 'upstream_error',
    code: 'bad_upstream_response',
    param: null,
  };
  return new UpstreamStreamError(info.message, info);
}

/** A stream event's JSON object; a frame that is not one ends the stream (badStreamFrame). */
export function parseEventObject<T extends object>(data: string): T {
  let parsed: T;
  try {
    parsed = JSON.parse(data);
  } catch {
    throw badStreamFrame(data);
  }
  if (!parsed || typeof parsed !== 'object') throw badStreamFrame(data);
  return parsed;
}
