/**
 * generateContent `tools`, `toolConfig` and `generationConfig` → chat fields: the reverse of
 * src/providers/gemini-request.ts (its thinking budgets and schema subset read the other way).
 */
import { invalidValue, unsupportedParameter } from '../../kernel/errors.ts';
import { THINKING_BUDGET } from '../../providers/gemini-request.ts';
import { fromGeminiSchema } from '../../providers/gemini-schema.ts';
import type { ChatRequest, ToolDefinition } from '../../providers/openai-types.ts';
import { isObject, refuseUnknown } from './fields.ts';

/** `tools[].functionDeclarations` → chat tools (other tool kinds are an upstream's own: refused). */
export function toolsToChat(tools: unknown): ToolDefinition[] | undefined {
  if (tools === undefined) return undefined;
  if (!Array.isArray(tools)) throw invalidValue("'tools' must be an array.", 'tools');
  const out: ToolDefinition[] = [];
  tools.forEach((tool: unknown, i) => {
    if (!isObject(tool)) throw invalidValue(`'tools[${i}]' must be an object.`, `tools[${i}]`);
    refuseUnknown(tool, new Set(['functionDeclarations']), `tools[${i}]`);
    const declarations = tool.functionDeclarations ?? [];
    if (!Array.isArray(declarations)) throw invalidValue(`'tools[${i}].functionDeclarations' must be an array.`, `tools[${i}].functionDeclarations`);
    declarations.forEach((declaration: unknown, j) => {
      const at = `tools[${i}].functionDeclarations[${j}]`;
      if (!isObject(declaration) || typeof declaration.name !== 'string' || declaration.name === '')
        throw invalidValue(`'${at}' needs a 'name'.`, `${at}.name`);
      refuseUnknown(declaration, new Set(['name', 'description', 'parameters', 'parametersJsonSchema']), at);
      const fn: ToolDefinition['function'] = { name: declaration.name };
      if (typeof declaration.description === 'string') fn.description = declaration.description;
      const parameters = declaration.parametersJsonSchema ?? (declaration.parameters === undefined ? undefined : fromGeminiSchema(declaration.parameters));
      if (parameters !== undefined) {
        if (!isObject(parameters)) throw invalidValue(`'${at}.parameters' must be a schema object.`, `${at}.parameters`);
        fn.parameters = parameters;
      }
      out.push({ type: 'function', function: fn });
    });
  });
  return out.length ? out : undefined;
}

/**
 * `toolConfig.functionCallingConfig` → `tool_choice`; ANY with several allowed names keeps only
 * those tools (chat can force one named function, or any of the tools offered).
 */
export function applyToolConfig(config: unknown, request: ChatRequest): void {
  if (config === undefined) return;
  if (!isObject(config)) throw invalidValue("'toolConfig' must be an object.", 'toolConfig');
  refuseUnknown(config, new Set(['functionCallingConfig']), 'toolConfig');
  const calling = config.functionCallingConfig;
  if (calling === undefined) return;
  const where = 'toolConfig.functionCallingConfig';
  if (!isObject(calling)) throw invalidValue(`'${where}' must be an object.`, where);
  refuseUnknown(calling, new Set(['mode', 'allowedFunctionNames']), where);
  const mode = calling.mode ?? 'AUTO';
  const allowed = calling.allowedFunctionNames;
  if (allowed !== undefined && (!Array.isArray(allowed) || !allowed.every((name) => typeof name === 'string')))
    throw invalidValue(`'${where}.allowedFunctionNames' must be an array of names.`, `${where}.allowedFunctionNames`);
  if (allowed?.length && mode !== 'ANY') throw invalidValue(`'${where}.allowedFunctionNames' goes with mode ANY only.`, `${where}.allowedFunctionNames`);
  if (mode === 'AUTO' || mode === 'MODE_UNSPECIFIED') request.tool_choice = 'auto';
  else if (mode === 'NONE') request.tool_choice = 'none';
  else if (mode === 'ANY') {
    if (!allowed?.length) request.tool_choice = 'required';
    else if (allowed.length === 1) request.tool_choice = { type: 'function', function: { name: allowed[0] } };
    else {
      request.tool_choice = 'required';
      request.tools = request.tools?.filter((tool) => allowed.includes(tool.function.name));
    }
  } else throw unsupportedParameter(`'${where}.mode' ${JSON.stringify(mode)} is not supported here (AUTO, ANY or NONE).`, `${where}.mode`);
}

const GENERATION_FIELDS = new Set([
  'temperature', 'topP', 'topK', 'maxOutputTokens', 'stopSequences', 'candidateCount', 'presencePenalty', 'frequencyPenalty',
  'seed', 'responseMimeType', 'responseSchema', 'responseJsonSchema', 'thinkingConfig', 'responseModalities', 'responseLogprobs',
]);

/** The reasoning effort whose budget covers `budget` tokens (-1: the model decides, as when unset). */
function effortFor(budget: number): string | undefined {
  if (budget === -1) return undefined;
  const efforts = Object.entries(THINKING_BUDGET).sort((a, b) => a[1] - b[1]);
  return (efforts.find(([, tokens]) => tokens >= budget) ?? efforts.at(-1)!)[0];
}

function number(config: Record<string, unknown>, key: string): number | undefined {
  const value = config[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw invalidValue(`'generationConfig.${key}' must be a number.`, `generationConfig.${key}`);
  return value;
}

/** `generationConfig` → sampling, limits, stops, structured output and reasoning effort. */
export function applyGenerationConfig(config: unknown, request: ChatRequest): void {
  if (config === undefined) return;
  if (!isObject(config)) throw invalidValue("'generationConfig' must be an object.", 'generationConfig');
  refuseUnknown(config, GENERATION_FIELDS, 'generationConfig');
  const set = (key: string, value: unknown) => {
    if (value !== undefined) request[key] = value;
  };
  set('temperature', number(config, 'temperature'));
  set('top_p', number(config, 'topP'));
  set('top_k', number(config, 'topK'));
  set('max_tokens', number(config, 'maxOutputTokens'));
  set('presence_penalty', number(config, 'presencePenalty'));
  set('frequency_penalty', number(config, 'frequencyPenalty'));
  set('seed', number(config, 'seed'));
  const stops = config.stopSequences;
  if (stops !== undefined) {
    if (!Array.isArray(stops) || !stops.every((stop) => typeof stop === 'string'))
      throw invalidValue("'generationConfig.stopSequences' must be an array of strings.", 'generationConfig.stopSequences');
    if (stops.length) request.stop = stops;
  }
  const count = number(config, 'candidateCount');
  if (count !== undefined && count !== 1) throw unsupportedParameter("Only one candidate is generated here: 'generationConfig.candidateCount' must be 1.", 'generationConfig.candidateCount');
  if (config.responseLogprobs !== undefined && config.responseLogprobs !== false)
    throw unsupportedParameter('Log probabilities are not returned here.', 'generationConfig.responseLogprobs');
  const modalities = config.responseModalities;
  if (modalities !== undefined && !(Array.isArray(modalities) && modalities.every((m) => m === 'TEXT')))
    throw unsupportedParameter("Answers are text only here: 'generationConfig.responseModalities' must be [\"TEXT\"].", 'generationConfig.responseModalities');
  applyResponseFormat(config, request);
  applyThinking(config.thinkingConfig, request);
}

function applyResponseFormat(config: Record<string, unknown>, request: ChatRequest): void {
  const mime = config.responseMimeType;
  const schema = config.responseJsonSchema ?? (config.responseSchema === undefined ? undefined : fromGeminiSchema(config.responseSchema));
  if (mime === undefined || mime === 'text/plain') {
    if (schema !== undefined) throw invalidValue("A response schema needs 'generationConfig.responseMimeType' application/json.", 'generationConfig.responseMimeType');
    return;
  }
  if (mime !== 'application/json')
    throw unsupportedParameter(`'generationConfig.responseMimeType' ${JSON.stringify(mime)} is not supported here (text/plain or application/json).`, 'generationConfig.responseMimeType');
  request.response_format = schema === undefined ? { type: 'json_object' } : { type: 'json_schema', json_schema: { name: 'response', schema } };
}

function applyThinking(thinking: unknown, request: ChatRequest): void {
  if (thinking === undefined) return;
  const where = 'generationConfig.thinkingConfig';
  if (!isObject(thinking)) throw invalidValue(`'${where}' must be an object.`, where);
  refuseUnknown(thinking, new Set(['thinkingBudget', 'includeThoughts', 'thinkingLevel']), where);
  if (thinking.thinkingLevel !== undefined) {
    const level = typeof thinking.thinkingLevel === 'string' ? thinking.thinkingLevel.toLowerCase() : '';
    if (!['minimal', 'low', 'medium', 'high'].includes(level)) throw invalidValue(`'${where}.thinkingLevel' must be MINIMAL, LOW, MEDIUM or HIGH.`, `${where}.thinkingLevel`);
    request.reasoning_effort = level;
  } else if (thinking.thinkingBudget !== undefined) {
    const budget = thinking.thinkingBudget;
    if (typeof budget !== 'number' || !Number.isInteger(budget) || budget < -1) throw invalidValue(`'${where}.thinkingBudget' must be an integer, -1 or more.`, `${where}.thinkingBudget`);
    const effort = effortFor(budget);
    if (effort) request.reasoning_effort = effort;
  }
  if (thinking.includeThoughts !== undefined && typeof thinking.includeThoughts !== 'boolean')
    throw invalidValue(`'${where}.includeThoughts' must be a boolean.`, `${where}.includeThoughts`);
}
