/**
 * Test support for adapter tests: read recorded upstream payloads from test/fixtures/upstream
 * and replay a recorded stream through a translator, assembling what a client would see.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ProviderConfig } from '../config/types.ts';
import type { ChatChunk, FinishReason, Usage } from './openai-types.ts';
import { parseSseText } from './sse.ts';
import type { ProviderAdapter, Target } from './types.ts';
import { GatewayError } from '../kernel/errors.ts';

const ROOT = fileURLToPath(new URL('../../test/fixtures/upstream/', import.meta.url));

/** A fixture's exact text (tests only: sync I/O is fine here). */
export const fixtureText = (path: string) => readFileSync(ROOT + path, 'utf8');
export const fixtureJson = (path: string): any => JSON.parse(fixtureText(path));

export function makeTarget(provider: Partial<ProviderConfig>, upstreamModel = 'upstream-model', requestedAs = 'client-model'): Target {
  return {
    provider: { id: 'p', name: 'p', status: 'active', endpoint: 'https://upstream.test', models: [], quota_limit: 0, type: 'compat', ...provider },
    upstreamModel,
    requestedAs,
  };
}

export interface Assembled {
  chunks: ChatChunk[];
  text: string;
  reasoning: string;
  toolCalls: Array<{ id?: string; name: string; arguments: string }>;
  finishReason: FinishReason | null;
  usage: Usage | undefined;
  done: boolean;
}

/** Push every recorded event through a fresh translator and assemble the deltas. */
export function replayStream(adapter: ProviderAdapter, target: Target, sseText: string, includeUsage = true): Assembled {
  const translator = adapter.createStreamTranslator(target, { includeUsage });
  const chunks: ChatChunk[] = [];
  for (const event of parseSseText(sseText)) chunks.push(...translator.push(event));
  const out: Assembled = { chunks, text: '', reasoning: '', toolCalls: [], finishReason: null, usage: undefined, done: translator.done };
  for (const chunk of chunks) {
    if (chunk.usage) out.usage = chunk.usage;
    for (const choice of chunk.choices) {
      if (choice.delta.content) out.text += choice.delta.content;
      if (choice.delta.reasoning_content) out.reasoning += choice.delta.reasoning_content;
      for (const call of choice.delta.tool_calls ?? []) {
        const slot = (out.toolCalls[call.index] ??= { name: '', arguments: '' });
        if (call.id) slot.id = call.id;
        if (call.function?.name) slot.name += call.function.name;
        if (call.function?.arguments) slot.arguments += call.function.arguments;
      }
      if (choice.finish_reason) out.finishReason = choice.finish_reason;
    }
  }
  return out;
}

/** The GatewayError a call throws (an adapter refusing a parameter); fails if it throws none. */
export function refusal(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (error) {
    if (GatewayError.is(error)) return error;
    throw error;
  }
  throw new Error('expected a GatewayError');
}
