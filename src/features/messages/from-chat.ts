/**
 * A chat completion → the Messages API's message: src/providers/anthropic-response.ts run the
 * other way (its stop-reason and usage tables). When a Messages-API upstream answered a native
 * request, its own message is the answer instead, only its `model` the one the client wrote.
 */
import { randomId } from '../../providers/shared.ts';
import { stopReasonFor, usageFor } from '../../providers/anthropic.ts';
import { nativeAnswerOf } from '../../providers/native.ts';
import type { ChatCompletion } from '../../providers/openai-types.ts';
import type { AnthropicMessage, Block } from './types.ts';

export const newMessageId = () => `msg_${randomId()}`;

/** Tool-call arguments as the tool_use block's input (an object); text that is no JSON object is kept under `arguments`. */
export function toolInput(text: string): Record<string, unknown> {
  if (!text) return {};
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through
  }
  return { arguments: text };
}

/** The message for `completion`, with `model` as the client wrote it. */
export function messageFromCompletion(completion: ChatCompletion, model: string): AnthropicMessage {
  const native = nativeAnswerOf(completion, 'vendor_b') as AnthropicMessage | undefined;
  if (native && typeof native === 'object') return Object.assign({}, native, { model });
  const choice = completion.choices[0];
  const message = choice?.message;
  const content: Block[] = [];
  const reasoning = message?.reasoning_content;
  // Chat upstreams sign no reasoning: the block has an empty signature (it cannot be sent back verified).
  if (typeof reasoning === 'string' && reasoning) content.push({ type: 'thinking', thinking: reasoning, signature: '' });
  if (typeof message?.content === 'string' && message.content !== '') content.push({ type: 'text', text: message.content });
  for (const call of message?.tool_calls ?? []) {
    content.push({ type: 'tool_use', id: call.id, name: call.function.name, input: toolInput(call.function.arguments) });
  }
  if (content.length === 0) content.push({ type: 'text', text: '' });
  return {
    id: newMessageId(),
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: stopReasonFor(choice?.finish_reason),
    stop_sequence: null,
    usage: usageFor(completion.usage),
  };
}
