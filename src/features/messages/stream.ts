/**
 * Chat chunks → the Messages API's event stream: message_start (then a ping), per content block
 * content_block_start / _delta (text_delta, thinking_delta, input_json_delta) / _stop, then
 * message_delta with the stop reason and usage, and message_stop. Chunks from a Messages-API
 * upstream that answered a native request carry its own events (src/providers/native.ts): those
 * go out as they came, only message_start's model renamed. The two mix when a cut native stream
 * is resumed on another upstream: the state below is kept from either kind.
 *
 * Every event sent is also applied to the message put together for the call log, as the
 * Anthropic SDK assembles it.
 */
import { stopReasonFor, usageFor } from '../../providers/anthropic.ts';
import { nativeEventsOf } from '../../providers/native.ts';
import type { ChatChunk, FinishReason, Usage } from '../../providers/openai-types.ts';
import { newMessageId, toolInput } from './from-chat.ts';
import type { AnthropicMessage, Block } from './types.ts';

type Event = { type: string; [key: string]: unknown };

interface OpenBlock {
  index: number;
  type: string;
  /** The chat tool-call index a tool_use block translates. */
  tool?: number;
}

export class MessageEvents {
  /** The SSE text of the events ready to send. */
  private out = '';
  private started = false;
  private stopped = false;
  private deltaSent = false;
  private nextIndex = 0;
  private open: OpenBlock | null = null;
  private finish: FinishReason | null = null;
  private usage: Usage | null = null;
  /** The message as sent so far (the call log's answer). */
  message: AnthropicMessage | null = null;
  private json = new Map<number, string>();

  constructor(private readonly model: string) {}

  /** The SSE text for one batch of chunks ('' when none is due). */
  batch(chunks: ChatChunk[]): string {
    for (const chunk of chunks) {
      const native = nativeEventsOf(chunk);
      if (native) for (const event of native) this.native(event.data);
      else this.translate(chunk);
    }
    return this.take();
  }

  /** The closing events of an answer the upstream finished. */
  end(): string {
    this.closeBlock();
    if (!this.deltaSent) {
      const usage = usageFor(this.usage);
      this.emit({ type: 'message_delta', delta: { stop_reason: stopReasonFor(this.finish), stop_sequence: null }, usage });
    }
    if (!this.stopped) this.emit({ type: 'message_stop' });
    return this.take();
  }

  /** The error event that ends a stream broken after its start. */
  error(error: { type: string; message: string }, requestId: string): string {
    this.send('error', JSON.stringify({ type: 'error', error, request_id: requestId }));
    return this.take();
  }

  private take(): string {
    const text = this.out;
    this.out = '';
    return text;
  }

  private send(type: string, data: string) {
    this.out += `event: ${type}\ndata: ${data}\n\n`;
  }

  private emit(event: Event) {
    this.apply(event);
    this.send(event.type, JSON.stringify(event));
  }

  /** One upstream event of a native stream, as it came (message_start: the client's model). */
  private native(data: string) {
    let event: Event;
    try {
      event = JSON.parse(data);
    } catch {
      return; // the translator already refused a frame that is not JSON
    }
    if (event.type === 'error') return; // ends the stream through the translator's throw
    if (event.type === 'message_start') {
      const message = event.message as Record<string, unknown> | undefined;
      if (message) message.model = this.model;
      this.started = true;
      this.emit(event);
      return;
    }
    if (event.type === 'content_block_start') {
      const index = Number(event.index);
      this.open = { index, type: String((event.content_block as Block | undefined)?.type) };
      this.nextIndex = Math.max(this.nextIndex, index + 1);
    } else if (event.type === 'content_block_stop') this.open = null;
    else if (event.type === 'message_delta') this.deltaSent = true;
    else if (event.type === 'message_stop') this.stopped = true;
    this.apply(event);
    this.send(event.type, data);
  }

  /** One chat chunk as the events it stands for. */
  private translate(chunk: ChatChunk) {
    if (chunk.usage) this.usage = chunk.usage;
    const choice = chunk.choices[0];
    if (!choice) return;
    this.start();
    const delta = choice.delta ?? {};
    if (typeof delta.reasoning_content === 'string' && delta.reasoning_content) {
      this.block('thinking', { type: 'thinking', thinking: '', signature: '' });
      this.emit({ type: 'content_block_delta', index: this.open!.index, delta: { type: 'thinking_delta', thinking: delta.reasoning_content } });
    }
    if (typeof delta.content === 'string' && delta.content) {
      this.block('text', { type: 'text', text: '' });
      this.emit({ type: 'content_block_delta', index: this.open!.index, delta: { type: 'text_delta', text: delta.content } });
    }
    for (const call of delta.tool_calls ?? []) {
      if (this.open?.type !== 'tool_use' || this.open.tool !== call.index) {
        this.closeBlock();
        this.open = { index: this.nextIndex++, type: 'tool_use', tool: call.index };
        const block = { type: 'tool_use', id: call.id ?? '', name: call.function?.name ?? '', input: {} };
        this.emit({ type: 'content_block_start', index: this.open.index, content_block: block });
      }
      const args = call.function?.arguments;
      if (args) this.emit({ type: 'content_block_delta', index: this.open.index, delta: { type: 'input_json_delta', partial_json: args } });
    }
    if (choice.finish_reason) this.finish = choice.finish_reason;
  }

  private start() {
    if (this.started) return;
    this.started = true;
    const message: AnthropicMessage = {
      id: newMessageId(), type: 'message', role: 'assistant', model: this.model, content: [],
      stop_reason: null, stop_sequence: null, usage: { input_tokens: 0, output_tokens: 0 },
    };
    this.emit({ type: 'message_start', message });
    this.send('ping', '{"type":"ping"}');
  }

  /** Opens a block of `type` unless one is open already. */
  private block(type: string, contentBlock: Block) {
    if (this.open?.type === type) return;
    this.closeBlock();
    this.open = { index: this.nextIndex++, type };
    this.emit({ type: 'content_block_start', index: this.open.index, content_block: contentBlock });
  }

  private closeBlock() {
    if (!this.open) return;
    this.emit({ type: 'content_block_stop', index: this.open.index });
    this.open = null;
  }

  /** Applies an event to the logged message, as the SDK's own accumulation does. */
  private apply(event: Event) {
    if (event.type === 'message_start') {
      this.message = structuredClone(event.message as AnthropicMessage);
      this.message.content = [];
      return;
    }
    const message = this.message;
    if (!message) return;
    const index = Number(event.index);
    switch (event.type) {
      case 'content_block_start':
        message.content[index] = structuredClone(event.content_block as Block);
        break;
      case 'content_block_delta': {
        const block = message.content[index];
        const delta = event.delta as Record<string, unknown>;
        if (!block) break;
        if (delta.type === 'text_delta') block.text = String(block.text ?? '') + String(delta.text);
        else if (delta.type === 'thinking_delta') block.thinking = String(block.thinking ?? '') + String(delta.thinking);
        else if (delta.type === 'signature_delta') block.signature = delta.signature;
        else if (delta.type === 'input_json_delta') this.json.set(index, (this.json.get(index) ?? '') + String(delta.partial_json));
        else if (delta.type === 'citations_delta') block.citations = [...((block.citations as unknown[] | undefined) ?? []), delta.citation];
        break;
      }
      case 'content_block_stop': {
        const json = this.json.get(index);
        if (json !== undefined && message.content[index]) message.content[index]!.input = toolInput(json);
        this.json.delete(index);
        break;
      }
      case 'message_delta': {
        const delta = event.delta as { stop_reason?: string | null; stop_sequence?: string | null };
        message.stop_reason = delta.stop_reason ?? null;
        message.stop_sequence = delta.stop_sequence ?? null;
        for (const [key, value] of Object.entries((event.usage as Record<string, unknown>) ?? {})) if (value !== null) message.usage[key] = value;
        break;
      }
    }
  }
}
