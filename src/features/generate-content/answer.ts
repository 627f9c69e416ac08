/**
 * A chat completion → the GenerateContentResponse a generateContent client expects: one
 * candidate whose parts are the thoughts (when asked), the text and the function calls, its
 * finishReason, and usageMetadata (the reverse of src/providers/gemini-response.ts mapUsage).
 * An answer a generateContent upstream wrote is passed on as it came instead (native.ts).
 */
import type { GatewayContext } from '../../pipeline/context.ts';
import { splitToolCallId } from '../../providers/gemini-request.ts';
import { nativeAnswerOf } from '../../providers/native.ts';
import type { ChatCompletion, FinishReason, ToolCall, Usage } from '../../providers/openai-types.ts';
import { includesThoughts } from './to-chat.ts';

export type Part = Record<string, unknown>;

/** Chat finish_reason → Google's (a turn that called functions also ends in STOP there). */
const FINISH: Record<FinishReason, string> = { stop: 'STOP', length: 'MAX_TOKENS', tool_calls: 'STOP', function_call: 'STOP', content_filter: 'SAFETY' };

export const finishReasonOf = (reason: FinishReason | null | undefined): string => (reason ? (FINISH[reason] ?? 'OTHER') : 'STOP');

/** Thoughts are counted in completion_tokens (gemini-response.ts): taken out again here. */
export function usageMetadata(usage: Usage | undefined): Record<string, number> | undefined {
  if (!usage) return undefined;
  const thoughts = usage.completion_tokens_details?.reasoning_tokens ?? 0;
  const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
  const meta: Record<string, number> = {
    promptTokenCount: usage.prompt_tokens,
    candidatesTokenCount: Math.max(0, usage.completion_tokens - thoughts),
    totalTokenCount: usage.total_tokens,
  };
  if (cached) meta.cachedContentTokenCount = cached;
  if (thoughts) meta.thoughtsTokenCount = thoughts;
  return meta;
}

/** A complete tool call → a functionCall part (the signature out of the id again). */
export function functionCallPart(call: ToolCall): Part {
  const { id, signature } = splitToolCallId(call.id ?? '');
  let args: unknown = {};
  try {
    args = JSON.parse(call.function.arguments || '{}');
  } catch {
    args = { arguments: call.function.arguments }; // an upstream's broken JSON, shown rather than lost
  }
  const part: Part = { functionCall: { ...(id ? { id } : {}), name: call.function.name, args } };
  if (signature) part.thoughtSignature = signature;
  return part;
}

/** The client's model (from the URL), which every answer names as its modelVersion. */
export const clientModel = (ctx: GatewayContext) => ctx.body.model;

/** A native answer with the client's model in it (and an id, should the upstream have sent none). */
export function asNative(ctx: GatewayContext, raw: unknown, id: string): Record<string, unknown> {
  const answer: Record<string, unknown> = Object.assign({}, raw as object, { modelVersion: clientModel(ctx) });
  if (typeof answer.responseId !== 'string') answer.responseId = id;
  return answer;
}

export function generateResponse(ctx: GatewayContext, completion: ChatCompletion): Record<string, unknown> {
  const raw = nativeAnswerOf(completion, 'vendor_c');
  if (raw !== undefined) return asNative(ctx, raw, completion.id);
  const choice = completion.choices[0];
  const message = choice?.message;
  const parts: Part[] = [];
  const reasoning = message?.reasoning_content;
  if (typeof reasoning === 'string' && reasoning && includesThoughts(ctx.rawBody)) parts.push({ text: reasoning, thought: true });
  if (typeof message?.content === 'string' && message.content !== '') parts.push({ text: message.content });
  for (const call of message?.tool_calls ?? []) parts.push(functionCallPart(call));
  if (parts.length === 0) parts.push({ text: '' });
  const answer: Record<string, unknown> = {
    candidates: [{ content: { role: 'model', parts }, finishReason: finishReasonOf(choice?.finish_reason), index: 0 }],
  };
  const usage = usageMetadata(completion.usage);
  if (usage) answer.usageMetadata = usage;
  answer.modelVersion = clientModel(ctx);
  answer.responseId = completion.id;
  return answer;
}
