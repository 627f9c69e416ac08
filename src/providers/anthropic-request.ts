/**
 * Chat request → Messages API request body (vendor_b). Refuses what the Messages API cannot
 * express instead of silently changing the meaning of the request.
 */
import type { ChatMessage, ChatRequest, ContentPart } from './openai-types.ts';
import { REQUIRED_MAX_TOKENS_DEFAULT, type BuildOptions, type Target } from './types.ts';
import { invalidValue, unsupportedParameter } from '../kernel/errors.ts';
import { own } from '../kernel/own.ts';
import { commonFields, never, only, refuseUnhonoured, translated, type FieldRules } from './chat-fields.ts';
import { contentParts, isHttpUrl, parseArguments, parseDataUrl } from './shared.ts';

type Block = Record<string, unknown>;
interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: Block[];
}

const zeroOnly = (name: string) => only((v) => v === 0, `The vendor_b upstream does not support '${name}' (only 0 is accepted).`);

/** Every top-level chat field this translation honours (chat-fields.ts); any other is refused by name. */
const FIELDS: FieldRules = new Map([
  ...commonFields('vendor_b'),
  ...translated(['temperature', 'top_p', 'max_tokens', 'max_completion_tokens', 'stop', 'tools', 'tool_choice', 'parallel_tool_calls']),
  ...translated(['response_format', 'reasoning_effort']),
  // Messages API fields a client may send directly: they have no OpenAI equivalent to map from.
  ...translated(['top_k', 'thinking']),
  ['frequency_penalty', zeroOnly('frequency_penalty')],
  ['presence_penalty', zeroOnly('presence_penalty')],
  ['seed', never("The vendor_b upstream cannot fix the sampling seed: 'seed' is not supported.")],
]);

/** The API's smallest thinking budget. */
export const MIN_THINKING_BUDGET = 1024;

/** Thinking budget per `reasoning_effort` (`none`: no thinking, the API's default). */
const THINKING_BUDGET: Record<string, number> = { minimal: MIN_THINKING_BUDGET, low: 2048, medium: 8192, high: 16384 };

/**
 * The table the other way (the Messages ingress to a chat upstream): the least effort whose
 * budget covers `budget` tokens, else the highest.
 */
export function effortForThinkingBudget(budget: number): string {
  for (const [effort, tokens] of Object.entries(THINKING_BUDGET)) if (budget <= tokens) return effort;
  return 'high';
}

function imageBlock(url: string, param: string): Block {
  const data = parseDataUrl(url);
  if (data) {
    if (!data.base64) throw invalidValue('Image data URLs must be base64-encoded.', param);
    return { type: 'image', source: { type: 'base64', media_type: data.mediaType, data: data.data } };
  }
  if (isHttpUrl(url)) return { type: 'image', source: { type: 'url', url } };
  throw invalidValue('Image URLs must be http(s) or base64 data URLs.', param);
}

/** Content parts → content blocks; `cache_control` on a part is forwarded as Anthropic defines it. */
function blocks(parts: ContentPart[], param: string): Block[] {
  const out: Block[] = [];
  parts.forEach((part, i) => {
    const where = `${param}[${i}]`;
    let block: Block;
    if (part.type === 'text') {
      // The API rejects empty text blocks.
      if (typeof part.text !== 'string' || part.text === '') return;
      block = { type: 'text', text: part.text };
    } else if (part.type === 'image_url') {
      const url = (part as { image_url?: { url?: unknown } }).image_url?.url;
      if (typeof url !== 'string') throw invalidValue('image_url.url must be a string.', where);
      block = imageBlock(url, where);
    } else if (part.type === 'file') {
      const fileData = (part as { file?: { file_data?: unknown } }).file?.file_data;
      const data = typeof fileData === 'string' ? parseDataUrl(fileData) : null;
      if (!data?.base64) throw invalidValue('File parts need file.file_data as a base64 data URL.', where);
      block = { type: 'document', source: { type: 'base64', media_type: data.mediaType, data: data.data } };
    } else {
      throw unsupportedParameter(`Content parts of type '${part.type}' are not supported by this upstream.`, where);
    }
    const cacheControl = (part as { cache_control?: unknown }).cache_control;
    if (cacheControl) block.cache_control = cacheControl;
    out.push(block);
  });
  return out;
}

function assistantBlocks(message: ChatMessage, param: string): Block[] {
  const out = blocks(contentParts(message.content as string | ContentPart[] | null), `${param}.content`);
  message.tool_calls?.forEach((call, i) => {
    out.push({
      type: 'tool_use',
      id: call.id,
      name: call.function.name,
      input: parseArguments(call.function.arguments, `${param}.tool_calls[${i}].function.arguments`),
    });
  });
  return out;
}

function toolResult(message: ChatMessage, param: string): Block {
  if (typeof message.tool_call_id !== 'string' || message.tool_call_id === '')
    throw invalidValue('Tool messages need a tool_call_id.', `${param}.tool_call_id`);
  const content =
    typeof message.content === 'string' ? message.content : blocks(contentParts(message.content), `${param}.content`);
  return { type: 'tool_result', tool_use_id: message.tool_call_id, content };
}

/**
 * Split system/developer text out and fold the rest into strictly alternating user/assistant
 * turns: tool results become `tool_result` blocks of a user turn, and consecutive same-role
 * messages are merged, as the Messages API requires.
 */
export function translateMessages(messages: ChatMessage[]): { system: Block[]; messages: AnthropicMessage[] } {
  const system: Block[] = [];
  const out: AnthropicMessage[] = [];
  const push = (role: AnthropicMessage['role'], content: Block[]) => {
    if (content.length === 0) return;
    const last = out[out.length - 1];
    if (last?.role === role) last.content.push(...content);
    else out.push({ role, content });
  };
  messages.forEach((message, i) => {
    const param = `messages[${i}]`;
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(...blocks(contentParts(message.content), `${param}.content`));
        break;
      case 'user':
        push('user', blocks(contentParts(message.content), `${param}.content`));
        break;
      case 'assistant':
        push('assistant', assistantBlocks(message, param));
        break;
      case 'tool':
        push('user', [toolResult(message, param)]);
        break;
      default:
        throw invalidValue(`Unknown message role '${String(message.role)}'.`, `${param}.role`);
    }
  });
  // A trailing assistant turn is a prefill, and the API rejects a prefill ending in whitespace.
  const last = out[out.length - 1];
  const tail = last?.role === 'assistant' ? last.content[last.content.length - 1] : undefined;
  if (tail?.type === 'text') {
    tail.text = String(tail.text).trimEnd();
    if (tail.text === '') last!.content.pop();
    if (last!.content.length === 0) out.pop();
  }
  return { system, messages: out };
}

function toolChoice(request: ChatRequest): Block | undefined {
  const choice = request.tool_choice;
  let out: Block | undefined;
  if (choice === undefined || choice === null || choice === 'auto') out = { type: 'auto' };
  else if (choice === 'none') return { type: 'none' };
  else if (choice === 'required') out = { type: 'any' };
  else if (typeof choice === 'object' && choice.type === 'function' && typeof choice.function?.name === 'string')
    out = { type: 'tool', name: choice.function.name };
  else throw invalidValue(`Unsupported tool_choice value.`, 'tool_choice');
  if (request.parallel_tool_calls === false) out.disable_parallel_tool_use = true;
  return out;
}

/**
 * JSON mode has no Messages API switch. Rule: `json_object` and `json_schema` are honoured by an
 * instruction appended to the system prompt (the schema quoted verbatim), so the answer is plain
 * text content that is a JSON document, as OpenAI clients expect; the schema is not enforced.
 */
function jsonInstruction(request: ChatRequest): string | undefined {
  const format = request.response_format;
  if (!format || format.type === 'text') return undefined;
  if (format.type === 'json_object') return 'Respond only with a single valid JSON object, without code fences or other text.';
  if (format.type === 'json_schema') {
    const schema = (format.json_schema as { schema?: unknown } | undefined)?.schema ?? {};
    return `Respond only with a single valid JSON document, without code fences or other text, that conforms to this JSON Schema: ${JSON.stringify(schema)}`;
  }
  throw unsupportedParameter(`response_format type '${format.type}' is not supported by this upstream.`, 'response_format');
}

/**
 * `max_tokens` (required) and `thinking`. The client's own `thinking` wins; else `reasoning_effort`
 * becomes a thinking budget. On this API max_tokens counts the thinking too, as
 * max_completion_tokens does on OpenAI: a limit the client named bounds both, and the budget
 * stays below it; without one, the budget comes on top of the default allowance (within the
 * model's declared max_output_tokens).
 */
function limits(request: ChatRequest, target: Target, defaultMaxTokens: number | undefined): { max_tokens: number; thinking?: unknown } {
  const asked = request.max_completion_tokens ?? request.max_tokens;
  const allowance = defaultMaxTokens ?? target.model?.max_output_tokens ?? REQUIRED_MAX_TOKENS_DEFAULT;
  if (request.thinking !== undefined && request.thinking !== null) return { max_tokens: asked ?? allowance, thinking: request.thinking };
  const effort = request.reasoning_effort;
  if (effort === undefined || effort === null || effort === 'none') return { max_tokens: asked ?? allowance };
  const budget = typeof effort === 'string' ? own(THINKING_BUDGET, effort) : undefined;
  if (budget === undefined)
    throw invalidValue(`reasoning_effort must be one of none, minimal, low, medium or high (got ${JSON.stringify(effort)}).`, 'reasoning_effort');
  const maxTokens = asked ?? Math.min(allowance + budget, target.model?.max_output_tokens ?? Infinity);
  const thinkingBudget = Math.min(budget, maxTokens - 1);
  if (thinkingBudget < MIN_THINKING_BUDGET) {
    throw invalidValue(
      `reasoning_effort needs a completion limit above ${MIN_THINKING_BUDGET} tokens on this model's upstream, whose limit counts the reasoning too (got ${maxTokens}).`,
      'reasoning_effort',
    );
  }
  return { max_tokens: maxTokens, thinking: { type: 'enabled', budget_tokens: thinkingBudget } };
}

/** The Messages API body for a chat request. */
export function anthropicBody(request: ChatRequest, target: Target, stream: boolean, options: Partial<BuildOptions> = {}): Record<string, unknown> {
  refuseUnhonoured(request, 'vendor_b', FIELDS);
  if (typeof request.temperature === 'number' && (request.temperature < 0 || request.temperature > 1))
    throw invalidValue(
      `temperature must be between 0 and 1 for this model's upstream (got ${request.temperature}).`,
      'temperature',
    );
  const { max_tokens, thinking } = limits(request, target, options.defaultMaxTokens);
  const { system, messages } = translateMessages(request.messages);
  const instruction = jsonInstruction(request);
  if (instruction) system.push({ type: 'text', text: instruction });

  const body: Record<string, unknown> = { model: target.upstreamModel, max_tokens, messages };
  if (system.length) {
    // A plain string unless a block carries cache_control, which only the block form can hold.
    body.system = system.some((b) => b.cache_control) ? system : system.map((b) => b.text).join('\n\n');
  }
  // While thinking, the API samples at temperature 1 and refuses another temperature or a top_p
  // below 0.95 (OpenAI's reasoning models likewise): the defaults the gateway fills in are not sent.
  const thinks = (thinking as { type?: unknown } | undefined)?.type === 'enabled';
  if (typeof request.temperature === 'number' && (!thinks || request.temperature === 1)) body.temperature = request.temperature;
  if (typeof request.top_p === 'number' && (!thinks || request.top_p >= 0.95)) body.top_p = request.top_p;
  if (request.stop !== undefined && request.stop !== null)
    body.stop_sequences = Array.isArray(request.stop) ? request.stop : [request.stop];
  if (request.tools?.length) {
    body.tools = request.tools.map((tool) => ({
      name: tool.function.name,
      ...(tool.function.description ? { description: tool.function.description } : {}),
      input_schema: tool.function.parameters ?? { type: 'object', properties: {} },
    }));
    body.tool_choice = toolChoice(request);
  }
  if (request.user) body.metadata = { user_id: request.user };
  if (request.top_k !== undefined) body.top_k = request.top_k;
  if (thinking !== undefined) body.thinking = thinking;
  if (stream) body.stream = true;
  return body;
}
