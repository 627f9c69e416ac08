import { describe, expect, it } from 'vitest';
import { keepNativeEvents } from '../../providers/native.ts';
import type { ChatChunk } from '../../providers/openai-types.ts';
import { ChunkFactory } from '../../providers/shared.ts';
import { MessageEvents } from './stream.ts';

const chunks = new ChunkFactory('m');
const parse = (text: string) =>
  text.split('\n\n').filter(Boolean).map((frame) => ({ event: /^event: (.*)$/m.exec(frame)![1]!, data: JSON.parse(/^data: (.*)$/m.exec(frame)![1]!) }));

describe('MessageEvents', () => {
  it('translates chat chunks into blocks, and closes with the stop reason and usage', () => {
    const events = new MessageEvents('client-model');
    const out = parse(
      events.batch([
        chunks.delta({ role: 'assistant', content: '' }),
        chunks.delta({ reasoning_content: 'hm' }),
        chunks.delta({ content: 'Hi' }),
        chunks.delta({ tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a"' } }] }),
        chunks.delta({ tool_calls: [{ index: 0, function: { arguments: ':1}' } }] }),
        chunks.delta({}, 'tool_calls'),
        chunks.usage({ prompt_tokens: 10, completion_tokens: 4, total_tokens: 14, prompt_tokens_details: { cached_tokens: 6 } }),
      ]) + events.end(),
    );
    expect(out.map((e) => `${e.event}${e.data.index ?? ''}`)).toEqual([
      'message_start', 'ping',
      'content_block_start0', 'content_block_delta0', 'content_block_stop0',
      'content_block_start1', 'content_block_delta1', 'content_block_stop1',
      'content_block_start2', 'content_block_delta2', 'content_block_delta2', 'content_block_stop2',
      'message_delta', 'message_stop',
    ]);
    expect(out[0]!.data.message).toMatchObject({ model: 'client-model', role: 'assistant', content: [] });
    expect(out[12]!.data).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { input_tokens: 4, output_tokens: 4, cache_read_input_tokens: 6, cache_creation_input_tokens: 0 },
    });
    expect(events.message).toMatchObject({
      model: 'client-model',
      stop_reason: 'tool_use',
      content: [{ type: 'thinking', thinking: 'hm' }, { type: 'text', text: 'Hi' }, { type: 'tool_use', id: 'c1', name: 'f', input: { a: 1 } }],
      usage: { input_tokens: 4, output_tokens: 4 },
    });
  });

  it("re-emits a native stream's events as they came, and continues a resumed leg in the open block", () => {
    const upstream = [
      { event: 'message_start', data: JSON.stringify({ type: 'message_start', message: { id: 'msg_u', type: 'message', role: 'assistant', model: 'upstream-name', content: [], usage: { input_tokens: 3, output_tokens: 1 } } }) },
      { event: 'ping', data: '{"type":"ping"}' },
      { event: 'content_block_start', data: '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}' },
      { event: 'content_block_delta', data: '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}' },
    ];
    const translator = keepNativeEvents({
      done: false,
      push: (event) => (event.event === 'message_start' ? [chunks.delta({ role: 'assistant', content: '' })] : event.event === 'content_block_delta' ? [chunks.delta({ content: 'Hel' })] : []),
    });
    const native: ChatChunk[] = upstream.flatMap((event) => translator.push(event));
    const events = new MessageEvents('client-model');
    const first = parse(events.batch(native));
    expect(first.map((e) => e.event)).toEqual(['message_start', 'ping', 'content_block_start', 'content_block_delta']);
    expect(first[0]!.data.message).toMatchObject({ id: 'msg_u', model: 'client-model' });
    // The continuation, from another upstream: plain chat chunks.
    const rest = parse(events.batch([chunks.delta({ content: 'lo' }), chunks.delta({}, 'stop')]) + events.end());
    expect(rest.map((e) => `${e.event}${e.data.index ?? ''}`)).toEqual(['content_block_delta0', 'content_block_stop0', 'message_delta', 'message_stop']);
    expect(events.message).toMatchObject({ id: 'msg_u', content: [{ type: 'text', text: 'Hello' }], stop_reason: 'end_turn' });
  });

  it('ends with the error event, in the shape of Anthropic errors', () => {
    const events = new MessageEvents('m');
    events.batch([chunks.delta({ content: 'x' })]);
    expect(parse(events.error({ type: 'api_error', message: 'cut' }, 'req_1'))).toEqual([
      { event: 'error', data: { type: 'error', error: { type: 'api_error', message: 'cut' }, request_id: 'req_1' } },
    ]);
  });
});
