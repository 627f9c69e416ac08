import { describe, expect, it } from 'vitest';
import { nativeRequestOf } from '../../providers/native.ts';
import { messagesToChat } from './to-chat.ts';
import { validateMessagesBody } from './validate.ts';

const chatOf = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  messagesToChat(validateMessagesBody({ model: 'm', max_tokens: 10, ...body }), new Headers(headers));

describe('messagesToChat', () => {
  it('puts tool results before the rest of a user turn, an error result marked as one', () => {
    const chat = chatOf({
      messages: [
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'f', input: { a: 1 } }, { type: 'tool_use', id: 't2', name: 'g', input: {} }] },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'one' }] },
            { type: 'text', text: 'and then?' },
            { type: 'tool_result', tool_use_id: 't2', content: 'boom', is_error: true },
          ],
        },
      ],
    });
    expect(chat.messages).toEqual([
      { role: 'assistant', content: null, tool_calls: [
        { id: 't1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } },
        { id: 't2', type: 'function', function: { name: 'g', arguments: '{}' } },
      ] },
      { role: 'tool', tool_call_id: 't1', content: 'one' },
      { role: 'tool', tool_call_id: 't2', content: 'Error: boom' },
      { role: 'user', content: 'and then?' },
    ]);
  });

  it('maps images, documents, tool_choice and the sampling fields', () => {
    const chat = chatOf({
      messages: [{ role: 'user', content: [
        { type: 'image', source: { type: 'url', url: 'https://x.test/a.png' } },
        { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBE' }, title: 'a.pdf' },
        { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'plain words' } },
      ] }],
      tools: [{ name: 'f', input_schema: { type: 'object' } }],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
      stop_sequences: ['END'], top_k: 5, temperature: 0.5, metadata: { user_id: 'u1' },
    });
    expect(chat).toMatchObject({
      messages: [{ role: 'user', content: [
        { type: 'image_url', image_url: { url: 'https://x.test/a.png' } },
        { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBE', filename: 'a.pdf' } },
        { type: 'text', text: 'plain words' },
      ] }],
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
      tool_choice: 'required', parallel_tool_calls: false, stop: ['END'], top_k: 5, temperature: 0.5, user: 'u1', max_tokens: 10,
    });
  });

  it('carries the body as sent (without the gateway-only fallbacks) and the dialect headers', () => {
    const chat = chatOf({ messages: [{ role: 'user', content: 'hi' }], fallbacks: ['other'] }, { 'anthropic-beta': 'b1', 'x-api-key': 'secret' });
    expect(chat.fallbacks).toEqual(['other']);
    const native = nativeRequestOf(chat)!;
    expect(native).toMatchObject({ format: 'vendor_b', body: { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }, headers: { 'anthropic-beta': 'b1' } });
    expect(native.body.fallbacks).toBeUndefined();
    expect(native.refusal).toBeUndefined();
    // Not enumerable: a copy of the request (a resume's continuation) is translated, not native.
    expect(nativeRequestOf({ ...chat })).toBeUndefined();
    expect(JSON.stringify(chat)).not.toContain('vendor_b');
  });

  it.each([
    [{ messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'url', url: 'https://x.test/a.pdf' } }] }] }, 'messages[0].content[0].source'],
    [{ messages: [{ role: 'user', content: 'hi' }], tools: [{ type: 'web_search_20250305', name: 'web_search' }] }, 'tools[0]'],
    [{ messages: [{ role: 'user', content: [{ type: 'search_result', source: 's', title: 't', content: [] }] }] }, 'messages[0].content[0].type'],
    [{ messages: [{ role: 'user', content: 'hi' }], container: 'c1' }, 'container'],
  ])('names what chat cannot carry as the refusal for other upstreams (%#)', (body, param) => {
    expect(nativeRequestOf(chatOf(body))!.refusal).toMatchObject({ status: 400, param });
  });
});
