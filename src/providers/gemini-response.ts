/**
 * generateContent answers → chat completions and chunks (vendor_c). A stream is a series of
 * whole GenerateContentResponse objects with no end marker: a finishReason ends it.
 */
import { TranslatorOf } from './stream-translator.ts';
import type { ChatChunk, ChatCompletion, FinishReason, ToolCall, Usage } from './openai-types.ts';
import type { SseEvent, StreamTranslator, Target } from './types.ts';
import { UpstreamStreamError } from './types.ts';
import { geminiErrorInfo } from './gemini-error.ts';
import { SIGNATURE_MARK } from './gemini-request.ts';
import { attachNativeAnswer } from './native.ts';
import { ChunkFactory, badResponse, parseEventObject, completionOf, makeUsage, newToolCallId, toJsonArguments } from './shared.ts';

interface GeminiPart {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  functionCall?: { id?: string; name: string; args?: unknown };
}
interface Candidate {
  content?: { parts?: GeminiPart[] };
  finishReason?: string;
}
interface UsageMetadata {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  thoughtsTokenCount?: number;
  cachedContentTokenCount?: number;
}
interface GenerateContentResponse {
  candidates?: Candidate[];
  promptFeedback?: { blockReason?: string };
  usageMetadata?: UsageMetadata;
  error?: unknown;
}

const FILTERED = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'LANGUAGE']);

/** Gemini finishReason → OpenAI; a turn that called functions finishes with `tool_calls`. */
export function mapFinishReason(reason: string, calledTools: boolean): FinishReason {
  if (reason === 'MAX_TOKENS') return 'length';
  if (FILTERED.has(reason)) return 'content_filter';
  return calledTools ? 'tool_calls' : 'stop';
}

/** Thoughts are billed as output, so they count as completion tokens, and as reasoning tokens. */
export function mapUsage(meta: UsageMetadata = {}): Usage {
  const thoughts = meta.thoughtsTokenCount ?? 0;
  return makeUsage(meta.promptTokenCount ?? 0, (meta.candidatesTokenCount ?? 0) + thoughts, {
    cached: meta.cachedContentTokenCount ?? 0,
    reasoning: thoughts,
  });
}

/** One functionCall part → an OpenAI tool call; the signature rides in the id (see SIGNATURE_MARK). */
function toolCall(part: GeminiPart): ToolCall {
  const call = part.functionCall!;
  const id = (call.id || newToolCallId()) + (part.thoughtSignature ? SIGNATURE_MARK + part.thoughtSignature : '');
  return { id, type: 'function', function: { name: call.name, arguments: toJsonArguments(call.args) } };
}

/** A whole GenerateContentResponse → chat.completion (first candidate: `n` is always 1). */
export function parseGeminiResponse(body: unknown, target: Target): ChatCompletion {
  const response = body as GenerateContentResponse;
  if (!response || typeof response !== 'object' || (!Array.isArray(response.candidates) && !response.promptFeedback))
    throw badResponse('no candidates');
  const candidate = response.candidates?.[0];
  let text = '';
  let reasoning = '';
  const toolCalls: ToolCall[] = [];
  for (const part of candidate?.content?.parts ?? []) {
    if (part.functionCall) toolCalls.push(toolCall(part));
    else if (typeof part.text === 'string' && part.thought) reasoning += part.text;
    else if (typeof part.text === 'string') text += part.text;
  }
  // No candidate at all means the prompt itself was blocked.
  const finish = candidate ? mapFinishReason(candidate.finishReason ?? 'STOP', toolCalls.length > 0) : 'content_filter';
  const completion = completionOf(target, { text, reasoning, toolCalls }, finish, mapUsage(response.usageMetadata));
  // A generateContent client gets this body itself (native.ts).
  return attachNativeAnswer(completion, body, 'vendor_c');
}

/** Stateful per stream: whether the role went out, tool-call indexes, the latest usage. */
export function createGeminiTranslator(target: Target, options: { includeUsage: boolean }): StreamTranslator {
  const chunks = new ChunkFactory(target.requestedAs);
  let started = false;
  let toolCount = 0;
  let usage: UsageMetadata | undefined;
  let done = false;

  const delta = (d: ChatChunk['choices'][number]['delta']) => {
    if (!started) {
      started = true;
      return chunks.delta({ role: 'assistant', ...d });
    }
    return chunks.delta(d);
  };

  function onResponse(response: GenerateContentResponse): ChatChunk[] {
    if (response.error) {
      const info = geminiErrorInfo(undefined, response, '');
      throw new UpstreamStreamError(info.message, info);
    }
    if (response.usageMetadata) usage = response.usageMetadata;
    const out: ChatChunk[] = [];
    const candidate = response.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) {
      if (part.functionCall) {
        const call = toolCall(part);
        out.push(delta({ tool_calls: [{ index: toolCount++, ...call }] }));
      } else if (typeof part.text === 'string' && part.text !== '') {
        out.push(delta(part.thought ? { reasoning_content: part.text } : { content: part.text }));
      }
    }
    const blocked = !candidate && response.promptFeedback?.blockReason;
    if (candidate?.finishReason || blocked) {
      if (!started) out.push(delta({ content: '' }));
      out.push(chunks.delta({}, blocked ? 'content_filter' : mapFinishReason(candidate!.finishReason!, toolCount > 0)));
      if (options.includeUsage) out.push(chunks.usage(mapUsage(usage)));
      done = true;
    }
    return out;
  }

  return new TranslatorOf((event: SseEvent): ChatChunk[] => {
    if (done) return [];
    const parsed = parseEventObject<GenerateContentResponse>(event.data);
    const out = onResponse(parsed);
    // A generateContent client gets the event itself (native.ts): on its first chunk, which
    // always has a choice (the usage chunk, which observers may drop, comes last).
    if (out.length) attachNativeAnswer(out[0]!, parsed, 'vendor_c');
    return out;
  }, () => done);
}
