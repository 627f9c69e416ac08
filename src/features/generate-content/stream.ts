/**
 * Chat chunk batches → the GenerateContentResponse objects of a generateContent stream. Text and
 * thoughts go out as they come; function calls, whose arguments chat streams in pieces, go out
 * whole with the last event, which also carries the finishReason and usageMetadata (held until
 * the usage chunk that follows the finish, or the end). An event a generateContent upstream
 * wrote is passed on as it came instead (native.ts), once per upstream event.
 */
import type { GatewayContext } from '../../pipeline/context.ts';
import { nativeAnswerOf } from '../../providers/native.ts';
import type { ChatChunk, FinishReason, ToolCall, Usage } from '../../providers/openai-types.ts';
import { asNative, clientModel, finishReasonOf, functionCallPart, usageMetadata, type Part } from './answer.ts';
import { includesThoughts } from './to-chat.ts';

export type GenerateEvent = Record<string, unknown>;

export class GenerateEvents {
  private readonly thoughts: boolean;
  private readonly calls = new Map<number, ToolCall>();
  private finish: FinishReason | null = null;
  private usage: Usage | undefined;
  private lastNative: unknown;
  private responseId = '';
  /** The last event has gone out (a native one, or the held finish). */
  closed = false;

  constructor(private readonly ctx: GatewayContext) {
    this.thoughts = includesThoughts(ctx.rawBody);
  }

  /** The events for one batch of chunks (possibly none). */
  push(batch: ChatChunk[]): GenerateEvent[] {
    const events: GenerateEvent[] = [];
    for (const chunk of batch) {
      this.responseId ||= chunk.id;
      const raw = nativeAnswerOf(chunk, 'vendor_c');
      if (raw !== undefined) {
        // Every chunk of one upstream event carries it: the event goes out once.
        if (raw !== this.lastNative) events.push(asNative(this.ctx, raw, this.responseId));
        this.lastNative = raw;
        if (chunk.choices[0]?.finish_reason) this.closed = true;
        continue;
      }
      if (chunk.usage) this.usage = chunk.usage;
      const choice = chunk.choices[0];
      if (!choice) continue;
      const parts: Part[] = [];
      const { delta } = choice;
      if (this.thoughts && typeof delta?.reasoning_content === 'string' && delta.reasoning_content) parts.push({ text: delta.reasoning_content, thought: true });
      if (delta?.content) parts.push({ text: delta.content });
      for (const call of delta?.tool_calls ?? []) {
        const held = this.calls.get(call.index);
        if (!held) this.calls.set(call.index, { id: call.id ?? '', type: 'function', function: { name: call.function?.name ?? '', arguments: call.function?.arguments ?? '' } });
        else held.function.arguments += call.function?.arguments ?? '';
      }
      if (parts.length) events.push(this.event(parts));
      if (choice.finish_reason) this.finish = choice.finish_reason;
    }
    // The usage follows the finish: once it is in, the last event can go.
    if (this.finish && this.usage && !this.closed) events.push(this.last());
    return events;
  }

  /** The held last event, at the end of a stream that finished without a usage chunk. */
  end(): GenerateEvent | null {
    return this.closed || !this.finish ? null : this.last();
  }

  private last(): GenerateEvent {
    this.closed = true;
    const parts = [...this.calls.values()].map(functionCallPart);
    const event = this.event(parts.length ? parts : [{ text: '' }], finishReasonOf(this.finish));
    const usage = usageMetadata(this.usage);
    if (usage) event.usageMetadata = usage;
    return event;
  }

  private event(parts: Part[], finishReason?: string): GenerateEvent {
    const candidate: Record<string, unknown> = { content: { role: 'model', parts } };
    if (finishReason) candidate.finishReason = finishReason;
    candidate.index = 0;
    return { candidates: [candidate], modelVersion: clientModel(this.ctx), responseId: this.responseId };
  }
}
