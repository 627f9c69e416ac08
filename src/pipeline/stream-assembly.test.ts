import { describe, expect, it } from 'vitest';
import type { ChatChunk } from '../providers/openai-types.ts';
import { StreamAssembly } from './stream-assembly.ts';

const chunk = (choices: ChatChunk['choices']): ChatChunk => ({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 7, model: 'm', choices });

describe('StreamAssembly', () => {
  it('puts text, parallel tool calls sent in pieces and finish reasons back together per choice', () => {
    const assembly = new StreamAssembly();
    expect(assembly.empty).toBe(true);
    assembly.add(chunk([{ index: 0, delta: { role: 'assistant', content: 'Let me ' }, finish_reason: null }]));
    assembly.add(chunk([{ index: 1, delta: { content: 'Other' }, finish_reason: null }]));
    assembly.add(chunk([{ index: 0, delta: { content: 'check.' }, finish_reason: null }]));
    assembly.add(chunk([{ index: 0, delta: { tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'b', arguments: '{"y"' } }] }, finish_reason: null }]));
    assembly.add(chunk([{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'a', arguments: '{' } }] }, finish_reason: null }]));
    assembly.add(chunk([{ index: 0, delta: { tool_calls: [{ index: 0, function: { name: 'a', arguments: '}' } }, { index: 1, function: { arguments: ':1}' } }] }, finish_reason: null }]));
    assembly.add(chunk([{ index: 0, delta: {}, finish_reason: 'tool_calls' }, { index: 1, delta: {}, finish_reason: 'stop' }]));
    const usage = { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 };
    expect(assembly.completion(usage)).toEqual({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 7,
      model: 'm',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Let me check.',
            tool_calls: [
              { id: 'call_a', type: 'function', function: { name: 'a', arguments: '{}' } },
              { id: 'call_b', type: 'function', function: { name: 'b', arguments: '{"y":1}' } },
            ],
          },
          finish_reason: 'tool_calls',
        },
        { index: 1, message: { role: 'assistant', content: 'Other' }, finish_reason: 'stop' },
      ],
      usage,
    });
  });

  it('keeps a refusal and reasoning text, and leaves the finish reason null for a cut stream', () => {
    const assembly = new StreamAssembly();
    assembly.add(chunk([{ index: 0, delta: { reasoning_content: 'hmm' }, finish_reason: null }]));
    assembly.add(chunk([{ index: 0, delta: { refusal: 'No.' }, finish_reason: null }]));
    expect(assembly.completion(undefined).choices).toEqual([
      { index: 0, message: { role: 'assistant', content: null, refusal: 'No.', reasoning_content: 'hmm' }, finish_reason: null },
    ]);
  });
});
