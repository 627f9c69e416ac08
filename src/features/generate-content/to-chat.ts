/**
 * A generateContent body → the chat request the pipeline runs on. The model and the stream come
 * from the URL. `safetySettings` reach a generateContent upstream with the native body; the other
 * formats have no such settings, and leaving them out only lets through what the upstream's own
 * policy lets through, so they are not refused there.
 */
import { invalidValue, unsupportedParameter } from '../../kernel/errors.ts';
import type { ChatMessage, ChatRequest } from '../../providers/openai-types.ts';
import { withNativeBody } from '../../providers/native.ts';
import { applyGenerationConfig, applyToolConfig, toolsToChat } from './config.ts';
import { contentsToMessages, systemText } from './contents.ts';
import { isObject, refuseUnknown } from './fields.ts';

const FIELDS = new Set(['model', 'contents', 'systemInstruction', 'tools', 'toolConfig', 'generationConfig', 'safetySettings']);

/** Reads the client's body; the model as the client wrote it in the URL. */
export function generateToChat(raw: unknown, model: string, stream: boolean): ChatRequest {
  if (!isObject(raw)) throw invalidValue('The request body must be a JSON object.');
  refuseUnknown(raw, FIELDS, '');
  if (raw.safetySettings !== undefined && !Array.isArray(raw.safetySettings)) throw invalidValue("'safetySettings' must be an array.", 'safetySettings');
  const messages: ChatMessage[] = [];
  const system = systemText(raw.systemInstruction);
  if (system) messages.push({ role: 'system', content: system });
  messages.push(...contentsToMessages(raw.contents));
  const request: ChatRequest = { model, messages };
  if (stream) {
    request.stream = true;
    // The usage closes the stream (usageMetadata on its last event), whatever the client asked.
    request.stream_options = { include_usage: true };
  }
  const tools = toolsToChat(raw.tools);
  if (tools) request.tools = tools;
  if (raw.toolConfig !== undefined && !tools) throw unsupportedParameter("'toolConfig' needs function declarations in 'tools'.", 'toolConfig');
  applyToolConfig(raw.toolConfig, request);
  applyGenerationConfig(raw.generationConfig, request);
  const { model: _model, ...native } = raw;
  return withNativeBody(request, 'vendor_c', native);
}

/** Does the client want the model's thoughts (`thinkingConfig.includeThoughts`)? Read from its body. */
export function includesThoughts(raw: unknown): boolean {
  const config = isObject(raw) && isObject(raw.generationConfig) ? raw.generationConfig : undefined;
  return isObject(config?.thinkingConfig) && config.thinkingConfig.includeThoughts === true;
}
