/**
 * Chat request → Messages API request body (vendor_b). Refuses what the Messages API cannot
 * express instead of silently changing the meaning of the request.
 */
import type { ChatMessage, ChatRequest, ContentPart } from './openai-types.ts';
import type { Target } from './types.ts';
import { invalidValue, unsupportedParameter } from '../kernel/errors.ts';
import { contentParts, isHttpUrl, parseArguments, parseDataUrl, refuseOpenAIOnly } from './shared.ts';

type Block = Record<string, unknown>;
interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: Block[];
}

/** Used when neither the request nor the model config bounds the answer: the API requires it. */
export const DEFAULT_MAX_TOKENS = 4096;

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

/** The Messages API body for a chat request. */
export function anthropicBody(request: ChatRequest, target: Target, stream: boolean): Record<string, unknown> {
  refuseOpenAIOnly(request, 'vendor_b', ['frequency_penalty', 'presence_penalty']);
  if (typeof request.temperature === 'number' && (request.temperature < 0 || request.temperature > 1))
    throw invalidValue(
      `temperature must be between 0 and 1 for this model's upstream (got ${request.temperature}).`,
      'temperature',
    );
  const { system, messages } = translateMessages(request.messages);
  const instruction = jsonInstruction(request);
  if (instruction) system.push({ type: 'text', text: instruction });

  const body: Record<string, unknown> = {
    model: target.upstreamModel,
    max_tokens: request.max_completion_tokens ?? request.max_tokens ?? target.model?.max_output_tokens ?? DEFAULT_MAX_TOKENS,
    messages,
  };
  if (system.length) {
    // A plain string unless a block carries cache_control, which only the block form can hold.
    body.system = system.some((b) => b.cache_control) ? system : system.map((b) => b.text).join('\n\n');
  }
  if (request.temperature !== undefined && request.temperature !== null) body.temperature = request.temperature;
  if (request.top_p !== undefined && request.top_p !== null) body.top_p = request.top_p;
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
  // Messages API fields a client may send directly; they have no OpenAI equivalent to map from.
  if (request.top_k !== undefined) body.top_k = request.top_k;
  if (request.thinking !== undefined) body.thinking = request.thinking;
  if (stream) body.stream = true;
  return body;
}
