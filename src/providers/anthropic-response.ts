/**
 * Messages API answers → chat completions and chunks (vendor_b): the whole message, and the
 * stream's message_start / content_block_* / message_delta / message_stop events.
 */
import { TranslatorOf } from './stream-translator.ts';
import type { ChatChunk, ChatCompletion, FinishReason, ToolCall, Usage } from './openai-types.ts';
import type { SseEvent, StreamTranslator, Target } from './types.ts';
import { UpstreamStreamError } from './types.ts';
import { ChunkFactory, badResponse, parseEventObject, completionOf, makeUsage, toJsonArguments } from './shared.ts';
import { anthropicErrorInfo } from './anthropic-error.ts';
import { own } from '../kernel/own.ts';

interface AnthropicUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

const STOP_REASONS: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
};

export const mapStopReason = (reason: string | null | undefined): FinishReason | null =>
  reason ? (own(STOP_REASONS, reason) ?? 'stop') : null;

/**
 * The other way (the Messages ingress answering from a chat upstream): each finish reason's stop
 * reason, the first the table above maps to it. A stop on one of the client's sequences is not
 * told apart from the end of the turn by chat upstreams: `end_turn`.
 */
const FINISH_REASONS: Record<FinishReason, string> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  content_filter: 'refusal',
};

export const stopReasonFor = (finish: FinishReason | null | undefined): string => (finish ? (own(FINISH_REASONS, finish) ?? 'end_turn') : 'end_turn');

/** Cache reads and writes are part of the prompt in OpenAI terms; reads are its cached share. */
export function mapUsage(usage: AnthropicUsage): Usage {
  const cached = usage.cache_read_input_tokens ?? 0;
  const prompt = (usage.input_tokens ?? 0) + cached + (usage.cache_creation_input_tokens ?? 0);
  return makeUsage(prompt, usage.output_tokens ?? 0, { cached });
}

/** mapUsage the other way: the cached share of the prompt is its cache reads (writes are not told apart). */
export function usageFor(usage: Usage | null | undefined): Required<AnthropicUsage> {
  const cached = usage?.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    input_tokens: Math.max(0, (usage?.prompt_tokens ?? 0) - cached),
    output_tokens: usage?.completion_tokens ?? 0,
    cache_read_input_tokens: cached,
    cache_creation_input_tokens: 0,
  };
}

interface ContentBlock {
  type: string;
  text?: string;
  thinking?: string;
  id?: string;
  name?: string;
  input?: unknown;
}

/** A whole Messages API message → chat.completion. */
export function parseAnthropicResponse(body: unknown, target: Target): ChatCompletion {
  const message = body as { content?: ContentBlock[]; stop_reason?: string | null; usage?: AnthropicUsage };
  if (!message || typeof message !== 'object' || !Array.isArray(message.content)) throw badResponse('no content array');
  let text = '';
  let reasoning = '';
  const toolCalls: ToolCall[] = [];
  for (const block of message.content) {
    if (block.type === 'text') text += block.text ?? '';
    else if (block.type === 'thinking') reasoning += block.thinking ?? '';
    else if (block.type === 'tool_use')
      toolCalls.push({ id: String(block.id), type: 'function', function: { name: String(block.name), arguments: toJsonArguments(block.input) } });
  }
  return completionOf(target, { text, reasoning, toolCalls }, mapStopReason(message.stop_reason) ?? 'stop', mapUsage(message.usage ?? {}));
}

interface StreamEvent {
  type: string;
  index?: number;
  message?: { usage?: AnthropicUsage };
  content_block?: ContentBlock;
  delta?: { type?: string; text?: string; thinking?: string; partial_json?: string; stop_reason?: string | null };
  usage?: AnthropicUsage;
  error?: { type?: string; message?: string };
}

/** Stateful per stream: Anthropic block indexes → OpenAI tool-call indexes, and running usage. */
export function createAnthropicTranslator(target: Target, options: { includeUsage: boolean }): StreamTranslator {
  const chunks = new ChunkFactory(target.requestedAs);
  /** content block index → { tool-call index, arguments seen } */
  const tools = new Map<number, { index: number; args: boolean }>();
  let usage: AnthropicUsage = {};
  let done = false;

  function onEvent(event: StreamEvent): ChatChunk[] {
    switch (event.type) {
      case 'message_start':
        usage = { ...event.message?.usage };
        return [chunks.delta({ role: 'assistant', content: '' })];
      case 'content_block_start': {
        const block = event.content_block;
        if (block?.type === 'tool_use') {
          const index = tools.size;
          // A server-filled input (rare) arrives whole here instead of as deltas.
          const input = block.input && Object.keys(block.input).length ? toJsonArguments(block.input) : '';
          tools.set(event.index ?? 0, { index, args: input !== '' });
          return [chunks.delta({ tool_calls: [{ index, id: block.id, type: 'function', function: { name: block.name, arguments: input } }] })];
        }
        if (block?.type === 'text' && block.text) return [chunks.delta({ content: block.text })];
        return [];
      }
      case 'content_block_delta': {
        const delta = event.delta ?? {};
        if (delta.type === 'text_delta' && delta.text) return [chunks.delta({ content: delta.text })];
        if (delta.type === 'thinking_delta' && delta.thinking) return [chunks.delta({ reasoning_content: delta.thinking })];
        if (delta.type === 'input_json_delta' && delta.partial_json) {
          const tool = tools.get(event.index ?? 0);
          if (!tool) return [];
          tool.args = true;
          return [chunks.delta({ tool_calls: [{ index: tool.index, function: { arguments: delta.partial_json } }] })];
        }
        return []; // signature_delta, citations_delta: nothing OpenAI-shaped to carry them
      }
      case 'content_block_stop': {
        // A call without parameters streams no JSON at all; clients still expect parseable arguments.
        const tool = tools.get(event.index ?? 0);
        if (!tool || tool.args) return [];
        tool.args = true;
        return [chunks.delta({ tool_calls: [{ index: tool.index, function: { arguments: '{}' } }] })];
      }
      case 'message_delta':
        // message_delta usage is cumulative; input counts appear there only on newer API versions.
        usage = { ...usage, ...Object.fromEntries(Object.entries(event.usage ?? {}).filter(([, v]) => v !== null)) };
        if (event.delta?.stop_reason) return [chunks.delta({}, mapStopReason(event.delta.stop_reason))];
        return [];
      case 'message_stop':
        done = true;
        return options.includeUsage ? [chunks.usage(mapUsage(usage))] : [];
      case 'error': {
        const info = anthropicErrorInfo(undefined, event);
        throw new UpstreamStreamError(info.message, info);
      }
      default:
        return []; // ping and any event type added later
    }
  }

  return new TranslatorOf((event: SseEvent): ChatChunk[] => {
    const parsed = parseEventObject<StreamEvent>(event.data);
    return onEvent({ ...parsed, type: parsed.type ?? event.event ?? '' });
  }, () => done);
}
