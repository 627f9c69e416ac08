/**
 * Chat chunks → the Responses streaming event sequence the official SDK consumes
 * (`response.created`, `response.in_progress`, `response.output_item.added`,
 * `response.content_part.added`, `response.output_text.delta`…, the matching `.done` events,
 * `response.completed`). A stream broken after the commit ends with `response.failed` and an
 * `error` event (never `response.completed`).
 */
import type { GatewayContext } from '../../pipeline/context.ts';
import { toGatewayError, type GatewayError } from '../../kernel/errors.ts';
import { streamCutError } from '../../pipeline/render.ts';
import type { ChatChunk, FinishReason } from '../../providers/openai-types.ts';
import { finishStatus, functionCallItem, messageItem, responseSkeleton, toResponseUsage } from './object.ts';
import type { FunctionCallItem, MessageItem, OutputItem, ResponseObject } from './types.ts';

export interface ResponseEvent {
  type: string;
  sequence_number?: number;
  [key: string]: unknown;
}

/** Open output items while streaming: the text message and tool calls by chunk index. */
class OutputState {
  readonly items: OutputItem[] = [];
  private text: MessageItem | null = null;
  private readonly calls = new Map<number, FunctionCallItem>();

  openText(): ResponseEvent[] {
    if (this.text) return [];
    const item = messageItem('', 'in_progress');
    item.content = [];
    this.text = item;
    const output_index = this.items.push(item) - 1;
    const part = { type: 'output_text', text: '', annotations: [], logprobs: [] };
    return [
      { type: 'response.output_item.added', output_index, item: structuredClone(item) },
      { type: 'response.content_part.added', item_id: item.id, output_index, content_index: 0, part },
    ];
  }

  appendText(delta: string): ResponseEvent[] {
    const events = this.openText();
    const item = this.text!;
    if (!item.content.length) item.content.push({ type: 'output_text', text: '', annotations: [], logprobs: [] });
    item.content[0].text += delta;
    events.push({ type: 'response.output_text.delta', item_id: item.id, output_index: this.items.indexOf(item), content_index: 0, delta, logprobs: [] });
    return events;
  }

  toolDelta(index: number, id: string | undefined, name: string | undefined, args: string | undefined): ResponseEvent[] {
    const events: ResponseEvent[] = [];
    let item = this.calls.get(index);
    if (!item) {
      events.push(...this.closeText());
      item = functionCallItem(id ?? `call_${index}`, name ?? '', '', 'in_progress');
      this.calls.set(index, item);
      this.items.push(item);
      events.push({ type: 'response.output_item.added', output_index: this.items.indexOf(item), item: structuredClone(item) });
    }
    if (args) {
      item.arguments += args;
      events.push({ type: 'response.function_call_arguments.delta', item_id: item.id, output_index: this.items.indexOf(item), delta: args });
    }
    return events;
  }

  closeText(): ResponseEvent[] {
    const item = this.text;
    if (!item) return [];
    this.text = null;
    if (!item.content.length) item.content.push({ type: 'output_text', text: '', annotations: [], logprobs: [] });
    item.status = 'completed';
    const output_index = this.items.indexOf(item);
    const part = item.content[0];
    return [
      { type: 'response.output_text.done', item_id: item.id, output_index, content_index: 0, text: part.text, logprobs: [] },
      { type: 'response.content_part.done', item_id: item.id, output_index, content_index: 0, part: structuredClone(part) },
      { type: 'response.output_item.done', output_index, item: structuredClone(item) },
    ];
  }

  closeAll(): ResponseEvent[] {
    const events = this.closeText();
    for (const item of this.calls.values()) {
      if (item.status === 'completed') continue;
      item.status = 'completed';
      const output_index = this.items.indexOf(item);
      events.push({ type: 'response.function_call_arguments.done', item_id: item.id, output_index, name: item.name, arguments: item.arguments });
      events.push({ type: 'response.output_item.done', output_index, item: structuredClone(item) });
    }
    return events;
  }
}

/**
 * The event sequence for one stream; errors become the failure events, never a throw.
 * `beforeEnd` sees the final object before the closing event goes out (so a stored response
 * can be read back as soon as the client has the end of the stream).
 */
export async function* responseEvents(
  ctx: GatewayContext,
  chunks: AsyncGenerator<ChatChunk[]>,
  beforeEnd: (final: ResponseObject) => Promise<void> = async () => {},
): AsyncGenerator<ResponseEvent> {
  const state = new OutputState();
  const base = () => responseSkeleton(ctx, 'in_progress');
  yield { type: 'response.created', response: { ...base(), status: 'in_progress' } };
  yield { type: 'response.in_progress', response: base() };
  let finish: FinishReason | null = null;
  let failure: GatewayError | null = null;
  try {
    for await (const batch of chunks) {
      for (const chunk of batch) {
        for (const choice of chunk.choices) {
          if (choice.delta?.content) yield* state.appendText(choice.delta.content);
          for (const call of choice.delta?.tool_calls ?? []) yield* state.toolDelta(call.index, call.id, call.function?.name, call.function?.arguments);
          if (choice.finish_reason) finish = choice.finish_reason;
        }
      }
    }
    if (!ctx.outcome.finished) failure = streamCutError();
  } catch (error) {
    failure = toGatewayError(error);
  }
  if (failure) {
    ctx.outcome.error = { code: failure.code, message: failure.message, type: failure.type };
    const failed: ResponseObject = { ...base(), status: 'failed', output: state.items, error: { code: failure.code, message: failure.message } };
    ctx.outcome.response = failed; // logged (and stored) in the responses shape
    await beforeEnd(failed);
    yield { type: 'response.failed', response: failed };
    // A top-level `error` object makes the SDK raise (it throws on any event whose data has one).
    yield { type: 'error', code: failure.code, message: failure.message, param: failure.param, error: failure.toJSON().error };
    return;
  }
  if (!state.items.length) yield* state.openText();
  yield* state.closeAll();
  const done: ResponseObject = {
    ...base(),
    ...finishStatus(finish),
    completed_at: Math.floor(Date.now() / 1000),
    output: state.items,
    usage: toResponseUsage(ctx.outcome.usage),
  };
  ctx.outcome.response = done;
  await beforeEnd(done);
  yield { type: done.status === 'incomplete' ? 'response.incomplete' : 'response.completed', response: done };
}
