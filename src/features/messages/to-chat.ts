/**
 * A Messages API request → the chat request the pipeline runs on: the translation of
 * src/providers/anthropic-request.ts run the other way. The client's own body rides along
 * (src/providers/native.ts) and goes unchanged to a Messages-API upstream; what the chat shape
 * cannot carry (a URL document, a server tool, MCP servers) becomes the refusal other upstreams
 * answer, by name, so a Messages-API fallback is tried instead.
 *
 * Dropped on the way to chat, having no chat equivalent and no effect on the answer's meaning:
 * cache_control (a caching hint), thinking blocks of earlier turns (chat upstreams take no
 * reasoning back), and service_tier.
 */
import { unsupportedParameter, type GatewayError } from '../../kernel/errors.ts';
import { effortForThinkingBudget } from '../../providers/anthropic.ts';
import { withNativeRequest } from '../../providers/native.ts';
import type { ChatMessage, ChatRequest, ContentPart, ToolCall, ToolDefinition } from '../../providers/openai-types.ts';
import type { Block, MessageParam, MessagesRequest } from './types.ts';

/** Fields a Messages-API upstream takes and chat has no way to carry. */
const NATIVE_ONLY = ['container', 'mcp_servers', 'context_management'];

/** Collects the first thing the translation cannot carry, instead of throwing at once. */
class Refusals {
  first?: GatewayError;
  add(param: string, what: string) {
    this.first ??= unsupportedParameter(`${what} cannot be carried to this model's upstream (only a Messages-API upstream takes it).`, param);
  }
}

function mediaPart(block: Block, param: string, refusals: Refusals): ContentPart | null {
  const source = block.source as { type: string; media_type?: string; data?: string; url?: string };
  if (source.type === 'base64') {
    const url = `data:${source.media_type};base64,${source.data}`;
    if (block.type === 'image') return { type: 'image_url', image_url: { url } };
    return { type: 'file', file: { file_data: url, ...(typeof block.title === 'string' ? { filename: block.title } : {}) } };
  }
  if (source.type === 'url' && block.type === 'image') return { type: 'image_url', image_url: { url: source.url! } };
  if (source.type === 'text') return { type: 'text', text: String(source.data) };
  refusals.add(`${param}.source`, `A ${block.type} with a '${source.type}' source`);
  return null;
}

/** User-side blocks → chat content parts (tool results are taken out by the caller). */
function parts(blocks: Block[], param: string, refusals: Refusals): ContentPart[] {
  const out: ContentPart[] = [];
  blocks.forEach((block, i) => {
    const where = `${param}[${i}]`;
    if (block.type === 'text') {
      if (block.text !== '') out.push({ type: 'text', text: String(block.text) });
    } else if (block.type === 'image' || block.type === 'document') {
      const part = mediaPart(block, where, refusals);
      if (part) out.push(part);
    } else if (block.type !== 'thinking' && block.type !== 'redacted_thinking') {
      refusals.add(`${where}.type`, `A '${block.type}' content block`);
    }
  });
  return out;
}

/** Parts as chat content: a plain string for one text part. */
function content(list: ContentPart[]): string | ContentPart[] {
  if (list.length === 0) return '';
  return list.length === 1 && list[0]!.type === 'text' ? String((list[0] as { text?: unknown }).text) : list;
}

function toolResult(block: Block, param: string, refusals: Refusals): ChatMessage {
  const inner = block.content;
  let text: string | ContentPart[] = typeof inner === 'string' ? inner : inner === undefined ? '' : content(parts(inner as Block[], `${param}.content`, refusals));
  // Chat has no error flag on a tool message: the model is told in the content.
  if (block.is_error === true && typeof text === 'string') text = `Error: ${text}`;
  return { role: 'tool', tool_call_id: String(block.tool_use_id), content: text };
}

function userMessages(message: MessageParam, param: string, refusals: Refusals): ChatMessage[] {
  if (typeof message.content === 'string') return [{ role: 'user', content: message.content }];
  const out: ChatMessage[] = [];
  const rest: Block[] = [];
  // Tool results first: chat wants them right after the assistant turn that called the tools.
  message.content.forEach((block, i) => {
    if (block.type === 'tool_result') out.push(toolResult(block, `${param}.content[${i}]`, refusals));
    else rest.push(block);
  });
  const list = parts(rest, `${param}.content`, refusals);
  if (list.length) out.push({ role: 'user', content: content(list) });
  return out;
}

function assistantMessage(message: MessageParam, param: string, refusals: Refusals): ChatMessage {
  if (typeof message.content === 'string') return { role: 'assistant', content: message.content };
  let text = '';
  const calls: ToolCall[] = [];
  message.content.forEach((block, i) => {
    if (block.type === 'text') text += String(block.text);
    else if (block.type === 'tool_use') {
      calls.push({ id: String(block.id), type: 'function', function: { name: String(block.name), arguments: JSON.stringify(block.input ?? {}) } });
    } else if (block.type !== 'thinking' && block.type !== 'redacted_thinking') refusals.add(`${param}.content[${i}].type`, `A '${block.type}' content block`);
  });
  const out: ChatMessage = { role: 'assistant', content: text === '' && calls.length ? null : text };
  if (calls.length) out.tool_calls = calls;
  return out;
}

function systemText(system: MessagesRequest['system']): string {
  return typeof system === 'string' ? system : (system ?? []).map((block) => String(block.text)).join('\n\n');
}

function tools(request: MessagesRequest, refusals: Refusals): ToolDefinition[] {
  const out: ToolDefinition[] = [];
  request.tools!.forEach((tool, i) => {
    if (tool.type !== undefined && tool.type !== 'custom') return refusals.add(`tools[${i}]`, `The server tool '${tool.type}'`);
    const fn: ToolDefinition['function'] = { name: tool.name, parameters: tool.input_schema };
    if (tool.description) fn.description = tool.description;
    out.push({ type: 'function', function: fn });
  });
  return out;
}

function toolChoice(choice: NonNullable<MessagesRequest['tool_choice']>): ChatRequest['tool_choice'] {
  if (choice.type === 'any') return 'required';
  if (choice.type === 'tool') return { type: 'function', function: { name: choice.name! } };
  return choice.type; // auto, none
}

/** The chat messages of a Messages API request (system first). */
export function chatMessages(request: MessagesRequest, refusals = new Refusals()): ChatMessage[] {
  const messages: ChatMessage[] = [];
  const system = systemText(request.system);
  if (system) messages.push({ role: 'system', content: system });
  request.messages.forEach((message, i) => {
    if (message.role === 'user') messages.push(...userMessages(message, `messages[${i}]`, refusals));
    else messages.push(assistantMessage(message, `messages[${i}]`, refusals));
  });
  return messages;
}

/** The chat request for a validated Messages API body, carrying the body itself for a Messages-API upstream. */
export function messagesToChat(request: MessagesRequest, headers: Headers): ChatRequest {
  const refusals = new Refusals();
  const chat: ChatRequest = { model: request.model, messages: chatMessages(request, refusals), max_tokens: request.max_tokens };
  if (request.stream) {
    chat.stream = true;
    // The usage chunk ends every stream: the answer's message_delta reports it.
    chat.stream_options = { include_usage: true };
  }
  if (request.fallbacks) chat.fallbacks = request.fallbacks;
  if (request.temperature !== undefined) chat.temperature = request.temperature;
  if (request.top_p !== undefined) chat.top_p = request.top_p;
  if (request.top_k !== undefined) chat.top_k = request.top_k;
  if (request.stop_sequences?.length) chat.stop = request.stop_sequences;
  if (typeof request.metadata?.user_id === 'string') chat.user = request.metadata.user_id;
  if (request.tools?.length) {
    chat.tools = tools(request, refusals);
    if (request.tool_choice) chat.tool_choice = toolChoice(request.tool_choice);
    if (request.tool_choice?.disable_parallel_tool_use === true) chat.parallel_tool_calls = false;
  }
  const thinking = request.thinking;
  if (thinking?.type === 'enabled') chat.reasoning_effort = effortForThinkingBudget(thinking.budget_tokens!);
  else if (thinking?.type === 'adaptive') chat.reasoning_effort = 'medium';
  for (const field of NATIVE_ONLY) if (request[field] !== undefined) refusals.add(field, `'${field}'`);

  const body: Record<string, unknown> = Object.assign({}, request);
  delete body.fallbacks; // the gateway's own field, never the upstream's
  const dialect: Record<string, string> = {};
  for (const name of ['anthropic-version', 'anthropic-beta']) {
    const value = headers.get(name);
    if (value) dialect[name] = value;
  }
  return withNativeRequest(chat, { format: 'vendor_b', body, headers: dialect, refusal: refusals.first });
}
