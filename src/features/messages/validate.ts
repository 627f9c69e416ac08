/**
 * The Messages API request as Anthropic documents it, checked at the edge: a bad shape or an
 * unknown top-level field is a 400 naming the field, before anything is translated or sent.
 * Content block types the check does not know pass (a Messages-API upstream may take them; the
 * chat translation refuses them by name).
 */
import { invalidBody } from '../../kernel/errors.ts';
import type { MessagesRequest } from './types.ts';

/**
 * Every top-level field of the Messages API, and `fallbacks`, the gateway's own (models tried
 * after this one, as on chat).
 */
const FIELDS = new Set([
  'model', 'messages', 'max_tokens', 'system', 'metadata', 'stop_sequences', 'stream', 'temperature', 'top_p', 'top_k',
  'tools', 'tool_choice', 'thinking', 'service_tier', 'container', 'mcp_servers', 'context_management', 'fallbacks',
]);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const fail = (param: string, message: string): never => {
  throw invalidBody(message, param);
};

function expectString(value: unknown, param: string, nonEmpty = false) {
  if (typeof value !== 'string' || (nonEmpty && value === '')) fail(param, `${param} must be a${nonEmpty ? ' non-empty' : ''} string.`);
}

function expectNumber(value: unknown, param: string, min: number, max = Infinity, integer = false) {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
    fail(param, `${param} must be ${integer ? 'an integer' : 'a number'} ${max === Infinity ? `of at least ${min}` : `between ${min} and ${max}`}.`);
  }
}

/** A `source` of an image or document block. */
function checkSource(source: unknown, param: string) {
  if (!isObject(source)) return fail(param, `${param} must be an object.`);
  if (source.type === 'base64') {
    expectString(source.media_type, `${param}.media_type`, true);
    expectString(source.data, `${param}.data`);
  } else if (source.type === 'url') expectString(source.url, `${param}.url`, true);
  else if (source.type === 'text') expectString(source.data, `${param}.data`);
  else if (source.type !== 'content' && source.type !== 'file') fail(`${param}.type`, `${param}.type must be one of base64, url, text, content or file.`);
}

function checkBlock(block: unknown, param: string, role: string) {
  if (!isObject(block)) return fail(param, `${param} must be a content block object.`);
  expectString(block.type, `${param}.type`, true);
  switch (block.type) {
    case 'text':
      return expectString(block.text, `${param}.text`);
    case 'image':
    case 'document':
      return checkSource(block.source, `${param}.source`);
    case 'tool_use':
      if (role !== 'assistant') fail(`${param}.type`, `tool_use blocks belong to assistant messages.`);
      expectString(block.id, `${param}.id`, true);
      expectString(block.name, `${param}.name`, true);
      if (!isObject(block.input)) fail(`${param}.input`, `${param}.input must be an object.`);
      return;
    case 'tool_result':
      if (role !== 'user') fail(`${param}.type`, `tool_result blocks belong to user messages.`);
      expectString(block.tool_use_id, `${param}.tool_use_id`, true);
      if (block.content !== undefined && typeof block.content !== 'string') {
        if (!Array.isArray(block.content)) fail(`${param}.content`, `${param}.content must be a string or an array of content blocks.`);
        (block.content as unknown[]).forEach((inner, i) => checkBlock(inner, `${param}.content[${i}]`, 'tool_result'));
      }
      if (block.is_error !== undefined && typeof block.is_error !== 'boolean') fail(`${param}.is_error`, `${param}.is_error must be a boolean.`);
      return;
    case 'thinking':
      expectString(block.thinking, `${param}.thinking`);
      return expectString(block.signature, `${param}.signature`);
    case 'redacted_thinking':
      return expectString(block.data, `${param}.data`);
    default:
      return; // another block type (server tools, search results): see the note at the top
  }
}

function checkMessages(messages: unknown) {
  if (!Array.isArray(messages) || messages.length === 0) fail('messages', 'messages must be a non-empty array.');
  (messages as unknown[]).forEach((message, i) => {
    const param = `messages[${i}]`;
    if (!isObject(message)) return fail(param, `${param} must be an object.`);
    if (message.role !== 'user' && message.role !== 'assistant') fail(`${param}.role`, `${param}.role must be 'user' or 'assistant'.`);
    if (typeof message.content === 'string') return;
    if (!Array.isArray(message.content)) return fail(`${param}.content`, `${param}.content must be a string or an array of content blocks.`);
    message.content.forEach((block, j) => checkBlock(block, `${param}.content[${j}]`, message.role as string));
  });
}

function checkSystem(system: unknown) {
  if (typeof system === 'string') return;
  if (!Array.isArray(system)) return fail('system', 'system must be a string or an array of text blocks.');
  system.forEach((block, i) => {
    if (!isObject(block) || block.type !== 'text') fail(`system[${i}]`, `system[${i}] must be a text block.`);
    expectString((block as Record<string, unknown>).text, `system[${i}].text`);
  });
}

function checkTools(tools: unknown) {
  if (!Array.isArray(tools)) return fail('tools', 'tools must be an array.');
  tools.forEach((tool, i) => {
    const param = `tools[${i}]`;
    if (!isObject(tool)) return fail(param, `${param} must be an object.`);
    expectString(tool.name, `${param}.name`, true);
    // A server tool (web search, code execution, ...) has a versioned type and no schema.
    if (tool.type !== undefined && tool.type !== 'custom') return expectString(tool.type, `${param}.type`, true);
    if (!isObject(tool.input_schema)) fail(`${param}.input_schema`, `${param}.input_schema must be a JSON Schema object.`);
    if (tool.description !== undefined) expectString(tool.description, `${param}.description`);
  });
}

function checkToolChoice(choice: unknown) {
  if (!isObject(choice)) return fail('tool_choice', 'tool_choice must be an object.');
  if (!['auto', 'any', 'tool', 'none'].includes(choice.type as string)) fail('tool_choice.type', "tool_choice.type must be one of auto, any, tool or none.");
  if (choice.type === 'tool') expectString(choice.name, 'tool_choice.name', true);
  if (choice.disable_parallel_tool_use !== undefined && typeof choice.disable_parallel_tool_use !== 'boolean') {
    fail('tool_choice.disable_parallel_tool_use', 'tool_choice.disable_parallel_tool_use must be a boolean.');
  }
}

function checkThinking(thinking: unknown) {
  if (!isObject(thinking)) return fail('thinking', 'thinking must be an object.');
  if (thinking.type === 'enabled') return expectNumber(thinking.budget_tokens, 'thinking.budget_tokens', 1024, Infinity, true);
  if (thinking.type !== 'disabled' && thinking.type !== 'adaptive') fail('thinking.type', "thinking.type must be 'enabled', 'disabled' or 'adaptive'.");
}

/**
 * The body, checked; throws a 400 naming the first field that is wrong. `countOnly`: a
 * count_tokens body, which names no completion limit.
 */
export function validateMessagesBody(raw: unknown, { countOnly = false } = {}): MessagesRequest {
  if (!isObject(raw)) return fail('', 'The request body must be a JSON object.');
  for (const key of Object.keys(raw)) if (!FIELDS.has(key)) fail(key, `Unknown field '${key}'.`);
  expectString(raw.model, 'model', true);
  if (raw.max_tokens === undefined && !countOnly) fail('max_tokens', 'max_tokens is required.');
  if (raw.max_tokens !== undefined) expectNumber(raw.max_tokens, 'max_tokens', 1, Infinity, true);
  checkMessages(raw.messages);
  if (raw.system !== undefined) checkSystem(raw.system);
  if (raw.tools !== undefined) checkTools(raw.tools);
  if (raw.tool_choice !== undefined) checkToolChoice(raw.tool_choice);
  if (raw.thinking !== undefined) checkThinking(raw.thinking);
  if (raw.stream !== undefined && typeof raw.stream !== 'boolean') fail('stream', 'stream must be a boolean.');
  if (raw.temperature !== undefined) expectNumber(raw.temperature, 'temperature', 0, 1);
  if (raw.top_p !== undefined) expectNumber(raw.top_p, 'top_p', 0, 1);
  if (raw.top_k !== undefined) expectNumber(raw.top_k, 'top_k', 0, Infinity, true);
  if (raw.stop_sequences !== undefined) {
    if (!Array.isArray(raw.stop_sequences)) fail('stop_sequences', 'stop_sequences must be an array of strings.');
    (raw.stop_sequences as unknown[]).forEach((s, i) => expectString(s, `stop_sequences[${i}]`, true));
  }
  if (raw.metadata !== undefined) {
    if (!isObject(raw.metadata)) fail('metadata', 'metadata must be an object.');
    const user = (raw.metadata as Record<string, unknown>).user_id;
    if (user !== undefined && user !== null) expectString(user, 'metadata.user_id');
  }
  if (raw.service_tier !== undefined) expectString(raw.service_tier, 'service_tier', true);
  if (raw.fallbacks !== undefined) {
    if (!Array.isArray(raw.fallbacks)) fail('fallbacks', 'fallbacks must be an array of model identifiers.');
    (raw.fallbacks as unknown[]).forEach((f, i) => expectString(f, `fallbacks[${i}]`, true));
  }
  return raw as unknown as MessagesRequest;
}
