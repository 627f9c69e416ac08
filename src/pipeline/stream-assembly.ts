/**
 * A streamed answer put back together as the chat completion a non-streamed call would have
 * returned (choices with message, tool calls and finish reason), for the call log and the
 * cache. Each chunk only appends to strings already held (no copy of the chunk, no parsing),
 * so the relay pays next to nothing; the completion object is built once, after the stream.
 */
import type { ChatChunk, ChatCompletion, FinishReason, ToolCall, Usage } from '../providers/openai-types.ts';

interface ChoiceState {
  content: string | null;
  refusal: string | null;
  reasoning: string | null;
  /** Tool calls by their stream index; arguments arrive in pieces. */
  calls: Map<number, ToolCall>;
  finish: FinishReason | null;
}

export class StreamAssembly {
  private id = '';
  private created = 0;
  private model = '';
  private readonly choices = new Map<number, ChoiceState>();

  /** The answer's id, from its first chunk ('' before any). */
  get responseId(): string {
    return this.id;
  }

  add(chunk: ChatChunk): void {
    if (!this.id) {
      this.id = chunk.id;
      this.created = chunk.created;
      this.model = chunk.model;
    }
    for (const choice of chunk.choices) {
      let state = this.choices.get(choice.index);
      if (!state) {
        state = { content: null, refusal: null, reasoning: null, calls: new Map(), finish: null };
        this.choices.set(choice.index, state);
      }
      const delta = choice.delta;
      if (delta) {
        if (delta.content) state.content = (state.content ?? '') + delta.content;
        if (delta.refusal) state.refusal = (state.refusal ?? '') + delta.refusal;
        if (delta.reasoning_content) state.reasoning = (state.reasoning ?? '') + delta.reasoning_content;
        if (delta.tool_calls) for (const call of delta.tool_calls) addToolCall(state.calls, call);
      }
      if (choice.finish_reason) state.finish = choice.finish_reason;
    }
  }

  /**
   * What the stream generated besides its content (which the outcome's `text` holds): refusals,
   * reasoning, tool-call names and arguments. Usage estimates count it too, so a stream of tool
   * calls cut before its usage chunk is never taken for an empty answer.
   */
  otherOutput(): string {
    let text = '';
    for (const state of this.choices.values()) {
      if (state.refusal) text += state.refusal;
      if (state.reasoning) text += state.reasoning;
      for (const call of state.calls.values()) text += `${call.function.name} ${call.function.arguments} `;
    }
    return text;
  }

  /** Nothing came through yet (no chunk with a choice). */
  get empty(): boolean {
    return this.choices.size === 0;
  }

  /** The completion so far, as the client saw it (its model identifier, the stream's id). */
  completion(usage: Usage | undefined): ChatCompletion {
    const choices = [...this.choices.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, state]) => {
        const message: ChatCompletion['choices'][number]['message'] = { role: 'assistant', content: state.content };
        if (state.refusal !== null) message.refusal = state.refusal;
        if (state.reasoning !== null) message.reasoning_content = state.reasoning;
        if (state.calls.size) message.tool_calls = [...state.calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
        return { index, message, finish_reason: state.finish };
      });
    const completion: ChatCompletion = { id: this.id, object: 'chat.completion', created: this.created, model: this.model, choices };
    if (usage) completion.usage = usage;
    return completion;
  }
}

function addToolCall(calls: Map<number, ToolCall>, delta: NonNullable<ChatChunk['choices'][number]['delta']['tool_calls']>[number]) {
  const call = calls.get(delta.index);
  if (!call) {
    calls.set(delta.index, {
      id: delta.id ?? '',
      type: 'function',
      function: { name: delta.function?.name ?? '', arguments: delta.function?.arguments ?? '' },
    });
    return;
  }
  if (delta.id) call.id = delta.id;
  // The name comes whole in the first delta; some upstreams repeat it, so it is never appended.
  if (delta.function?.name && !call.function.name) call.function.name = delta.function.name;
  if (delta.function?.arguments) call.function.arguments += delta.function.arguments;
}
