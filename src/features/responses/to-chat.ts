/**
 * The responses interface (spec 4.11) translated to the chat-shaped request the pipeline runs
 * on: `instructions` becomes a system message, `input` items become chat messages, the flat
 * Responses tool shape becomes chat tools, and the 4.11 defaults are applied.
 */
import { precompiledValidators, bodyValidator } from '../inference/validate-body.ts';
import { invalidValue, unsupportedParameter } from '../../kernel/errors.ts';
import { refuseUnservedFields } from './fields.ts';
import type { ChatMessage, ChatRequest, ContentPart, ToolCall, ToolDefinition } from '../../providers/openai-types.ts';
import type { ResponsesInputItem, ResponsesPart, ResponsesRequest } from './types.ts';

export const validateResponsesBody = bodyValidator<ResponsesRequest>(precompiledValidators.responses);

/** Spec 4.11 / 8 defaults; temperature's default may be replaced by the account setting (auth step). */
export const RESPONSES_DEFAULTS = { temperature: 0.7, top_p: 0.9, frequency_penalty: 0, presence_penalty: 0, parallel_tool_calls: true, tool_choice: 'auto' } as const;

function part(value: ResponsesPart, index: number, path: string): ContentPart {
  switch (value.type) {
    case 'input_text':
    case 'output_text':
    case 'text':
      return { type: 'text', text: value.text ?? '' };
    case 'refusal':
      return { type: 'text', text: value.refusal ?? value.text ?? '' };
    case 'input_image':
      if (!value.image_url) throw invalidValue('input_image needs an image_url (a URL or a data: URL).', `${path}[${index}].image_url`);
      return { type: 'image_url', image_url: { url: value.image_url, ...(value.detail ? { detail: value.detail } : {}) } };
    default:
      throw invalidValue(`The content part type '${value.type}' is not supported.`, `${path}[${index}].type`);
  }
}

function messageOf(item: ResponsesInputItem, index: number): ChatMessage {
  const role = item.role!;
  if (typeof item.content === 'string') return { role, content: item.content };
  const parts = (item.content ?? []).map((p, i) => part(p, i, `input[${index}].content`));
  // Assistant history is text only in the chat shape.
  if (role === 'assistant') return { role, content: parts.map((p) => (p.type === 'text' ? String(p.text) : '')).join('') };
  return { role, content: parts };
}

/** `input` (string or item list) → chat messages; consecutive function calls share one assistant turn. */
export function inputToMessages(input: ResponsesRequest['input']): ChatMessage[] {
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  const messages: ChatMessage[] = [];
  for (const [index, item] of input.entries()) {
    const type = item.type ?? 'message';
    if (type === 'message') messages.push(messageOf(item, index));
    else if (type === 'function_call') {
      const call: ToolCall = { id: item.call_id!, type: 'function', function: { name: item.name!, arguments: item.arguments! } };
      const last = messages.at(-1);
      if (last?.role === 'assistant' && last.tool_calls) last.tool_calls.push(call);
      else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
    } else if (type === 'function_call_output') {
      const output = typeof item.output === 'string' ? item.output : JSON.stringify(item.output);
      messages.push({ role: 'tool', tool_call_id: item.call_id!, content: output });
    } else if (type === 'reasoning') continue; // opaque upstream state; no chat-shaped equivalent
    else throw invalidValue(`The input item type '${type}' is not supported.`, `input[${index}].type`);
  }
  return messages;
}

const toolsOf = (tools: ResponsesRequest['tools']): ToolDefinition[] | undefined =>
  tools?.map((tool) => ({
    type: 'function',
    function: {
      name: tool.name,
      ...(tool.description ? { description: tool.description } : {}),
      ...(tool.parameters ? { parameters: tool.parameters } : {}),
      ...(typeof tool.strict === 'boolean' ? { strict: tool.strict } : {}),
    },
  }));

function responseFormat(body: ResponsesRequest): ChatRequest['response_format'] {
  const format = body.text?.format;
  if (!format || format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'json_object' };
  return { type: 'json_schema', json_schema: { name: format.name ?? 'response', schema: format.schema, strict: format.strict ?? undefined } };
}

/** Fields passed on to the chat request as they are (they do not change the answer). */
const HINTS = ['prompt_cache_key', 'prompt_cache_retention', 'safety_identifier', 'service_tier'] as const;

/** How many messages the instructions take at the head of the chat request: one system message, or none. */
export const instructionMessages = (body: { instructions?: unknown }): 0 | 1 => (body.instructions ? 1 : 0);

/** Validate a responses body and build the chat request the pipeline runs on. */
export function responsesToChat(raw: unknown): ChatRequest {
  refuseBuiltInTools((raw as { tools?: unknown } | null)?.tools);
  const body = validateResponsesBody(raw);
  refuseUnservedFields(body as unknown as Record<string, unknown>);
  const messages = inputToMessages(body.input);
  if (instructionMessages(body)) messages.unshift({ role: 'system', content: body.instructions! });
  const choice = body.tool_choice ?? RESPONSES_DEFAULTS.tool_choice;
  const request: ChatRequest = {
    model: body.model ?? '',
    messages,
    stream: body.stream === true && body.background !== true,
    temperature: body.temperature ?? RESPONSES_DEFAULTS.temperature,
    top_p: body.top_p ?? RESPONSES_DEFAULTS.top_p,
    frequency_penalty: body.frequency_penalty ?? RESPONSES_DEFAULTS.frequency_penalty,
    presence_penalty: body.presence_penalty ?? RESPONSES_DEFAULTS.presence_penalty,
  };
  if (request.stream) request.stream_options = { include_usage: true }; // response.completed carries usage
  const maxTokens = body.max_output_tokens ?? body.max_tokens;
  if (maxTokens !== undefined) request.max_tokens = maxTokens;
  const tools = toolsOf(body.tools);
  if (tools?.length) {
    request.tools = tools;
    request.tool_choice = typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
    request.parallel_tool_calls = body.parallel_tool_calls ?? RESPONSES_DEFAULTS.parallel_tool_calls;
  }
  const format = responseFormat(body);
  if (format) request.response_format = format;
  if (body.fallbacks) request.fallbacks = body.fallbacks;
  if (body.metadata) request.metadata = body.metadata;
  if (body.user) request.user = body.user;
  if (body.stop !== undefined && body.stop !== null) request.stop = body.stop;
  if (body.reasoning?.effort) request.reasoning_effort = body.reasoning.effort;
  if (body.text?.verbosity) request.verbosity = body.text.verbosity;
  for (const hint of HINTS) if (body[hint] !== undefined && body[hint] !== null) request[hint] = body[hint];
  return request;
}

/**
 * OpenAI's built-in tools (web_search, file_search, code_interpreter, computer_use, mcp...) run
 * at OpenAI: only function tools can be offered to a model here. Checked before the body's
 * schema, which would otherwise name the function fields such a tool lacks.
 */
function refuseBuiltInTools(tools: unknown): void {
  if (!Array.isArray(tools)) return;
  tools.forEach((tool, i) => {
    const type = (tool as { type?: unknown } | null)?.type;
    if (typeof type === 'string' && type !== 'function') {
      throw unsupportedParameter(`The built-in tool '${type}' runs at OpenAI and is not available here: only function tools are supported.`, `tools[${i}].type`);
    }
  });
}
