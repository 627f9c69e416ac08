import { describe, expect, it } from 'vitest';
import { openaiBody } from './openai.ts';
import type { ChatRequest } from './openai-types.ts';
import { makeTarget } from './shared-fixtures.ts';

const target = makeTarget({}, 'upstream-model', 'client-model');
const messages = [{ role: 'user' as const, content: 'Hi' }];

describe('openaiBody: the compat upstream request', () => {
  it('sends a whole answer without the stream fields or the gateway-only ones, in the client order', () => {
    const request = { model: 'client-model', stream: false, messages, stream_options: { include_usage: true }, temperature: 0.2, fallbacks: ['other'], user: undefined } as unknown as ChatRequest;
    const body = openaiBody(request, target, false);
    expect(JSON.stringify(body)).toBe(JSON.stringify({ model: 'upstream-model', messages, temperature: 0.2 }));
  });

  it('asks a stream for its usage, keeping the client stream options', () => {
    const request = { model: 'client-model', messages, stream: true, stream_options: { include_obfuscation: false } } as unknown as ChatRequest;
    expect(openaiBody(request, target, true)).toEqual({
      model: 'upstream-model',
      messages,
      stream: true,
      stream_options: { include_obfuscation: false, include_usage: true },
    });
    // The client's own object is not changed.
    expect(request.stream_options).toEqual({ include_obfuscation: false });
  });
});
