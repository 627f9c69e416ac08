/**
 * Chat request → generateContent request body (vendor_c): systemInstruction, user/model
 * contents, function declarations and calls, and the generationConfig.
 */
import type { ChatMessage, ChatRequest, ContentPart } from './openai-types.ts';
import type { Target } from './types.ts';
import { invalidValue, unsupportedParameter } from '../kernel/errors.ts';
import { geminiSchema } from './gemini-schema.ts';
import { contentParts, contentText, isHttpUrl, parseArguments, parseDataUrl } from './shared.ts';
import { own } from '../kernel/own.ts';
import { commonFields, only, refuseUnhonoured, translated, type FieldRules } from './chat-fields.ts';

type Part = Record<string, unknown>;
interface Content {
  role: 'user' | 'model';
  parts: Part[];
}

/** Every top-level chat field this translation honours (chat-fields.ts); any other is refused by name. */
const FIELDS: FieldRules = new Map([
  ...commonFields('vendor_c'),
  ...translated(['temperature', 'top_p', 'top_k', 'max_tokens', 'max_completion_tokens', 'stop', 'presence_penalty', 'frequency_penalty']),
  ...translated(['seed', 'response_format', 'tools', 'tool_choice', 'reasoning_effort']),
  // generateContent has no switch for one function call per turn: the model decides.
  [
    'parallel_tool_calls',
    only((v) => v === true, "The vendor_c upstream cannot be kept to one function call per turn: 'parallel_tool_calls' must be true."),
  ],
]);

/**
 * thinkingConfig.thinkingBudget per `reasoning_effort` (`none`: no thinking, where the model allows
 * it). The generateContent ingress reads it the other way.
 */
export const THINKING_BUDGET: Record<string, number> = { none: 0, minimal: 512, low: 1024, medium: 8192, high: 24576 };

/**
 * Gemini requires a function call's `thoughtSignature` back on the next turn. OpenAI clients
 * echo tool-call ids verbatim, so the signature travels inside the id after this marker.
 */
export const SIGNATURE_MARK = '__thought__';

export function splitToolCallId(id: string): { id: string; signature?: string } {
  const at = id.indexOf(SIGNATURE_MARK);
  return at === -1 ? { id } : { id: id.slice(0, at), signature: id.slice(at + SIGNATURE_MARK.length) };
}

const MIME_BY_EXTENSION: Record<string, string> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp',
  heic: 'image/heic', heif: 'image/heif', pdf: 'application/pdf',
};

function mediaPart(url: string, param: string): Part {
  const data = parseDataUrl(url);
  if (data) {
    if (!data.base64) throw invalidValue('Data URLs must be base64-encoded.', param);
    return { inlineData: { mimeType: data.mediaType, data: data.data } };
  }
  if (isHttpUrl(url)) {
    // fileData needs a MIME type; guess it from the extension, as the URL is never fetched here.
    const extension = /\.([a-z0-9]+)(?:[?#]|$)/i.exec(url)?.[1]?.toLowerCase() ?? '';
    return { fileData: { mimeType: own(MIME_BY_EXTENSION, extension) ?? 'image/jpeg', fileUri: url } };
  }
  throw invalidValue('Media URLs must be http(s) or base64 data URLs.', param);
}

function parts(content: ChatMessage['content'], param: string): Part[] {
  return contentParts(content).flatMap((part: ContentPart, i): Part[] => {
    const where = `${param}[${i}]`;
    if (part.type === 'text') return typeof part.text === 'string' && part.text !== '' ? [{ text: part.text }] : [];
    if (part.type === 'image_url') {
      const url = (part as { image_url?: { url?: unknown } }).image_url?.url;
      if (typeof url !== 'string') throw invalidValue('image_url.url must be a string.', where);
      return [mediaPart(url, where)];
    }
    if (part.type === 'file') {
      const fileData = (part as { file?: { file_data?: unknown } }).file?.file_data;
      if (typeof fileData !== 'string') throw invalidValue('File parts need file.file_data as a data URL.', where);
      return [mediaPart(fileData, where)];
    }
    throw unsupportedParameter(`Content parts of type '${part.type}' are not supported by this upstream.`, where);
  });
}

/** A tool result must be an object (a protobuf Struct); anything else is wrapped as `output`. */
function responseObject(content: ChatMessage['content']): Record<string, unknown> {
  const text = contentText(content);
  try {
    const value = JSON.parse(text);
    if (value && typeof value === 'object' && !Array.isArray(value)) return value;
    return { output: value };
  } catch {
    return { output: text };
  }
}

/** Messages → systemInstruction text and user/model contents, same-role turns merged. */
export function translateContents(messages: ChatMessage[]): { system: string[]; contents: Content[] } {
  const system: string[] = [];
  const contents: Content[] = [];
  // Tool results name their function only by call id; remember the names the calls carried.
  const names = new Map<string, string>();
  const push = (role: Content['role'], add: Part[]) => {
    if (add.length === 0) return;
    const last = contents[contents.length - 1];
    if (last?.role === role) last.parts.push(...add);
    else contents.push({ role, parts: add });
  };
  messages.forEach((message, i) => {
    const param = `messages[${i}]`;
    if (message.role === 'system' || message.role === 'developer') {
      const text = contentText(message.content);
      if (text) system.push(text);
    } else if (message.role === 'user') push('user', parts(message.content, `${param}.content`));
    else if (message.role === 'assistant') {
      const out = parts(message.content, `${param}.content`);
      message.tool_calls?.forEach((call, j) => {
        const { id, signature } = splitToolCallId(call.id);
        names.set(call.id, call.function.name);
        const args = parseArguments(call.function.arguments, `${param}.tool_calls[${j}].function.arguments`);
        out.push({ functionCall: { id, name: call.function.name, args }, ...(signature ? { thoughtSignature: signature } : {}) });
      });
      push('model', out);
    } else if (message.role === 'tool') {
      const callId = String(message.tool_call_id ?? '');
      const name = names.get(callId) ?? (typeof message.name === 'string' ? message.name : undefined);
      if (!name) throw invalidValue(`No earlier assistant tool call has the id '${callId}'.`, `${param}.tool_call_id`);
      push('user', [{ functionResponse: { id: splitToolCallId(callId).id, name, response: responseObject(message.content) } }]);
    } else throw invalidValue(`Unknown message role '${String(message.role)}'.`, `${param}.role`);
  });
  return { system, contents };
}

function toolConfig(choice: ChatRequest['tool_choice']): Record<string, unknown> | undefined {
  if (choice === undefined || choice === null) return undefined;
  if (choice === 'auto') return { functionCallingConfig: { mode: 'AUTO' } };
  if (choice === 'none') return { functionCallingConfig: { mode: 'NONE' } };
  if (choice === 'required') return { functionCallingConfig: { mode: 'ANY' } };
  if (typeof choice === 'object' && typeof choice.function?.name === 'string')
    return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.function.name] } };
  throw invalidValue('Unsupported tool_choice value.', 'tool_choice');
}

function generationConfig(request: ChatRequest): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  const set = (key: string, value: unknown) => {
    if (value !== undefined && value !== null) config[key] = value;
  };
  set('temperature', request.temperature);
  set('topP', request.top_p);
  set('maxOutputTokens', request.max_completion_tokens ?? request.max_tokens);
  if (request.stop !== undefined && request.stop !== null) config.stopSequences = Array.isArray(request.stop) ? request.stop : [request.stop];
  set('presencePenalty', request.presence_penalty);
  set('frequencyPenalty', request.frequency_penalty);
  set('topK', request.top_k);
  set('seed', request.seed);
  const effort = request.reasoning_effort;
  if (effort !== undefined && effort !== null) {
    // maxOutputTokens counts the thoughts too, as max_completion_tokens does on OpenAI.
    const budget = typeof effort === 'string' ? own(THINKING_BUDGET, effort) : undefined;
    if (budget === undefined)
      throw invalidValue(`reasoning_effort must be one of none, minimal, low, medium or high (got ${JSON.stringify(effort)}).`, 'reasoning_effort');
    config.thinkingConfig = { thinkingBudget: budget };
  }
  const format = request.response_format;
  if (format?.type === 'json_object') config.responseMimeType = 'application/json';
  else if (format?.type === 'json_schema') {
    const schema = (format.json_schema as { schema?: unknown } | undefined)?.schema;
    config.responseMimeType = 'application/json';
    if (schema) Object.assign(config, geminiSchema('responseSchema', schema));
  } else if (format && format.type !== 'text')
    throw unsupportedParameter(`response_format type '${format.type}' is not supported by this upstream.`, 'response_format');
  return config;
}

/** The generateContent body for a chat request (the same for streams: the URL differs). */
export function geminiBody(request: ChatRequest, _target: Target): Record<string, unknown> {
  refuseUnhonoured(request, 'vendor_c', FIELDS);
  const { system, contents } = translateContents(request.messages);
  const body: Record<string, unknown> = { contents };
  if (system.length) body.systemInstruction = { parts: system.map((text) => ({ text })) };
  if (request.tools?.length) {
    body.tools = [
      {
        functionDeclarations: request.tools.map((tool) => ({
          name: tool.function.name,
          ...(tool.function.description ? { description: tool.function.description } : {}),
          ...(tool.function.parameters ? geminiSchema('parameters', tool.function.parameters) : {}),
        })),
      },
    ];
    const config = toolConfig(request.tool_choice);
    if (config) body.toolConfig = config;
  }
  body.generationConfig = generationConfig(request);
  return body;
}
