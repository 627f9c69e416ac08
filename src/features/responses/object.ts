/**
 * Build the spec 2.10 response object: the skeleton echoing the request's settings, and the
 * finished object from a chat completion (output items, usage).
 */
import { randomId } from '../../providers/shared.ts';
import type { ChatCompletion, Usage } from '../../providers/openai-types.ts';
import type { GatewayContext } from '../../pipeline/context.ts';
import { RESPONSES_DEFAULTS } from './to-chat.ts';
import { storesResponse } from './store.ts';
import type { FunctionCallItem, MessageItem, OutputItem, ResponseObject, ResponseUsage, ResponsesRequest } from './types.ts';

export const newResponseId = () => `resp_${randomId(32)}`;
export const newMessageId = () => `msg_${randomId(32)}`;
export const newFunctionCallId = () => `fc_${randomId(32)}`;
const seconds = () => Math.floor(Date.now() / 1000);

/** The response id of this request: fixed early for background calls, else made once. */
export function responseIdOf(ctx: GatewayContext): string {
  let id = ctx.locals.get('responses.id') as string | undefined;
  if (!id) {
    id = newResponseId();
    ctx.locals.set('responses.id', id);
  }
  return id;
}

/** The object before any output: status as given, settings echoed (defaults filled in). */
export function responseSkeleton(ctx: GatewayContext, status: ResponseObject['status'], model?: string): ResponseObject {
  const raw = ctx.rawBody as ResponsesRequest;
  const created = (ctx.locals.get('responses.created_at') as number | undefined) ?? Math.floor(ctx.startedAt / 1000);
  return {
    id: responseIdOf(ctx),
    object: 'response',
    created_at: created,
    status,
    background: raw.background === true,
    store: storesResponse(ctx),
    completed_at: null,
    error: null,
    incomplete_details: null,
    instructions: raw.instructions ? [{ role: 'system', content: raw.instructions }] : [],
    max_output_tokens: raw.max_output_tokens ?? raw.max_tokens ?? null,
    metadata: raw.metadata ?? {},
    model: model ?? ctx.outcome.served?.model ?? raw.model ?? ctx.body.model,
    output: [],
    parallel_tool_calls: raw.parallel_tool_calls ?? RESPONSES_DEFAULTS.parallel_tool_calls,
    // The temperature actually sent (an account's default may replace 0.7).
    temperature: ctx.body.temperature ?? RESPONSES_DEFAULTS.temperature,
    top_p: raw.top_p ?? RESPONSES_DEFAULTS.top_p,
    frequency_penalty: raw.frequency_penalty ?? RESPONSES_DEFAULTS.frequency_penalty,
    presence_penalty: raw.presence_penalty ?? RESPONSES_DEFAULTS.presence_penalty,
    text: { format: raw.text?.format ?? { type: 'text' }, ...(raw.text?.verbosity ? { verbosity: raw.text.verbosity } : {}) },
    // What was asked and passed on (summaries, like truncation 'auto', are refused: fields.ts).
    reasoning: { effort: raw.reasoning?.effort ?? null, summary: null },
    tool_choice: raw.tool_choice ?? RESPONSES_DEFAULTS.tool_choice,
    tools: raw.tools ?? [],
    truncation: 'disabled',
    user: raw.user ?? null,
    usage: null,
  };
}

export function toResponseUsage(usage: Usage | undefined): ResponseUsage | null {
  if (!usage) return null;
  return {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: { cached_tokens: usage.prompt_tokens_details?.cached_tokens ?? 0 },
    output_tokens: usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: usage.completion_tokens_details?.reasoning_tokens ?? 0 },
    total_tokens: usage.total_tokens,
  };
}

export const messageItem = (text: string, status: MessageItem['status'] = 'completed', id = newMessageId()): MessageItem => ({
  type: 'message',
  id,
  status,
  role: 'assistant',
  content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
});

export const functionCallItem = (callId: string, name: string, args: string, status: FunctionCallItem['status'] = 'completed', id = newFunctionCallId()): FunctionCallItem => ({
  type: 'function_call',
  id,
  call_id: callId,
  name,
  arguments: args,
  status,
});

/** A length cut is `incomplete`, like OpenAI's max_output_tokens; everything else completed. */
export function finishStatus(finish: string | null | undefined): Pick<ResponseObject, 'status' | 'incomplete_details'> {
  if (finish === 'length') return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
  if (finish === 'content_filter') return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
  return { status: 'completed', incomplete_details: null };
}

/** The finished 2.10 object for a whole chat completion. */
export function responseFromCompletion(ctx: GatewayContext, completion: ChatCompletion): ResponseObject {
  const choice = completion.choices[0];
  const message = choice?.message;
  const output: OutputItem[] = [];
  const text = message?.content ?? '';
  if (text || !message?.tool_calls?.length) output.push(messageItem(text));
  for (const call of message?.tool_calls ?? []) output.push(functionCallItem(call.id, call.function.name, call.function.arguments));
  return {
    ...responseSkeleton(ctx, 'completed', completion.model),
    ...finishStatus(choice?.finish_reason),
    completed_at: seconds(),
    output,
    usage: toResponseUsage(completion.usage),
  };
}
