/**
 * vendor_b, the Messages API: `POST /v1/messages` with `x-api-key` and `anthropic-version`;
 * JSON or `event:`-named SSE (message_start … message_stop, with pings).
 */
import type { FinishReason, Format } from './format.ts';
import { countTokens, type Normalized } from './plan.ts';

function textOf(content: any): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.filter((b: any) => b.type === 'text').map((b: any) => b.text).join(' ');
  return '';
}

function normalize(body: any): Normalized {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  const last = messages.at(-1);
  const isToolResult = (m: any) => Array.isArray(m?.content) && m.content.some((b: any) => b.type === 'tool_result');
  const user = [...messages].reverse().find((m) => m.role === 'user' && !isToolResult(m));
  const result = isToolResult(last) ? last.content.find((b: any) => b.type === 'tool_result') : undefined;
  return {
    model: String(body?.model ?? ''),
    stream: body?.stream === true,
    lastUser: textOf(user?.content),
    images: Array.isArray(user?.content) ? user.content.filter((b: any) => b.type === 'image').length : 0,
    tools: (body?.tools ?? []).map((t: any) => t.name),
    toolResult: result ? textOf(result.content) : undefined,
    prefix: last?.role === 'assistant' ? textOf(last.content) : undefined,
    stop: body?.stop_sequences,
    maxTokens: body?.max_tokens,
    thinking: body?.thinking?.type === 'enabled',
  };
}

/** count_tokens: the words of every text in the system prompt and messages, as the mock counts. */
export function countMessagesTokens(body: any): number {
  const system = typeof body?.system === 'string' ? body.system : textOf(body?.system);
  return (body?.messages ?? []).reduce((sum: number, m: any) => sum + countTokens(textOf(m.content)), countTokens(system));
}

const STOP_REASONS: Record<FinishReason, string> = { stop: 'end_turn', tool_calls: 'tool_use', stop_sequence: 'stop_sequence', length: 'max_tokens' };

export const messagesFormat: Format = {
  name: 'vendor_b',
  match: (path) => (/\/v1\/messages$/.test(path) ? null : undefined),
  checkAuth(headers) {
    if (!headers['x-api-key']) return 'Missing x-api-key header.';
    return headers['anthropic-version'] ? null : 'Missing anthropic-version header.';
  },
  normalize: (body) => normalize(body),
  errorBody(status, message) {
    const type = status === 529 ? 'overloaded_error' : status === 429 ? 'rate_limit_error' : status >= 500 ? 'api_error' : status === 401 ? 'authentication_error' : 'invalid_request_error';
    return { type: 'error', error: { type, message } };
  },
  json(plan, request, id) {
    const content: object[] = plan.toolCall
      ? [{ type: 'tool_use', id: plan.toolCall.id.replace('call_', 'toolu_'), name: plan.toolCall.name, input: JSON.parse(plan.toolCall.arguments) }]
      : [{ type: 'text', text: plan.text }];
    if (plan.thinking) content.unshift({ type: 'thinking', thinking: plan.thinking.text, signature: plan.thinking.signature });
    return {
      id: id.replace('chatcmpl-', 'msg_'), type: 'message', role: 'assistant', model: request.model, content,
      stop_reason: STOP_REASONS[plan.toolCall ? 'tool_calls' : (plan.finish ?? 'stop')], stop_sequence: plan.stopSequence ?? null,
      usage: { input_tokens: plan.usage.prompt, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: plan.usage.completion },
    };
  },
  writer(send, request, plan, id) {
    const frame = (type: string, data: object) => send(type, { type, ...data });
    let block = -1;
    let textOpen = false;
    return {
      start() {
        frame('message_start', { message: { id: id.replace('chatcmpl-', 'msg_'), type: 'message', role: 'assistant', model: request.model, content: [], stop_reason: null, usage: { input_tokens: plan.usage.prompt, output_tokens: 1 } } });
        frame('ping', {});
        if (plan.thinking) {
          frame('content_block_start', { index: ++block, content_block: { type: 'thinking', thinking: '', signature: '' } });
          frame('content_block_delta', { index: block, delta: { type: 'thinking_delta', thinking: plan.thinking.text } });
          frame('content_block_delta', { index: block, delta: { type: 'signature_delta', signature: plan.thinking.signature } });
          frame('content_block_stop', { index: block });
        }
      },
      text(piece) {
        if (!textOpen) frame('content_block_start', { index: ++block, content_block: { type: 'text', text: '' } });
        textOpen = true;
        frame('content_block_delta', { index: block, delta: { type: 'text_delta', text: piece } });
      },
      tool(call) {
        frame('content_block_start', { index: ++block, content_block: { type: 'tool_use', id: call.id.replace('call_', 'toolu_'), name: call.name, input: {} } });
        textOpen = true; // the open block, closed at the finish
        const half = Math.ceil(call.arguments.length / 2);
        for (const part of [call.arguments.slice(0, half), call.arguments.slice(half)]) frame('content_block_delta', { index: block, delta: { type: 'input_json_delta', partial_json: part } });
      },
      finish(reason) {
        if (textOpen) frame('content_block_stop', { index: block });
        frame('message_delta', { delta: { stop_reason: STOP_REASONS[reason], stop_sequence: plan.stopSequence ?? null }, usage: { output_tokens: plan.usage.completion } });
      },
      end: () => frame('message_stop', {}),
    };
  },
};
