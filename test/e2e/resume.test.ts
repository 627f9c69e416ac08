import OpenAI from 'openai';
import { beforeEach, describe, expect, it } from 'vitest';
import { client, useGateway } from '../_setup.ts';

const env = useGateway('resume.yaml');
beforeEach(() => {
  env.mock.reset();
  const reply = 'one two three four five';
  env.mock.setBehavior('breaks', { cutAfterChunks: 2, chunkDelayMs: 10, reply });
  for (const model of ['cont', 'plain', 'dep-cont']) env.mock.setBehavior(model, { reply });
});

async function read(fallbacks: string[]) {
  const stream = await client(env.gw).chat.completions.create({
    model: 'primary',
    fallbacks,
    messages: [{ role: 'user', content: 'count' }],
    stream: true,
    stream_options: { include_usage: true },
  } as OpenAI.ChatCompletionCreateParamsStreaming);
  let text = '';
  let finish: string | null = null;
  const ids = new Set<string>();
  let usage: OpenAI.CompletionUsage | undefined;
  const error = await (async () => {
    for await (const chunk of stream) {
      ids.add(chunk.id);
      text += chunk.choices[0]?.delta?.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
  })().catch((e) => e);
  return { text, finish, ids, usage, error };
}

describe('stream resume on a prefix-accepting fallback', () => {
  it('continues a broken stream on the fallback as the same chunk stream, logging the splice', async () => {
    const records: Array<{ attempts: Array<{ model: string; status: number; kind?: string }> }> = [];
    const services = env.gw.gateway.runtime.services as Record<string, unknown>;
    const previous = services.logs;
    services.logs = { enqueue: (record: (typeof records)[number]) => records.push(record) };
    const result = await read(['noprefix', 'prefill']);
    await new Promise((resolve) => setTimeout(resolve, 50));
    services.logs = previous;
    expect(records.at(-1)?.attempts).toEqual([
      expect.objectContaining({ model: 'primary', status: 200, kind: 'first' }),
      expect.objectContaining({ model: 'primary', status: 0, kind: 'first' }),
      expect.objectContaining({ model: 'prefill', status: 200, kind: 'resumed' }),
    ]);
    expect(result.error).toBeUndefined();
    expect(result.text).toBe('one two three four five');
    expect(result.finish).toBe('stop');
    expect(result.ids.size).toBe(1);
    expect(result.usage).toBeDefined();
    // The model not configured for prefixes was never sent one; the continuation got the text so far.
    expect(env.mock.requests.map((r) => r.model)).toEqual(['breaks', 'cont']);
    const sent = env.mock.requests[1].body.messages;
    expect(sent.at(-1)).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'one two' }] });
    expect(sent[0]).toMatchObject({ role: 'user' });
  });

  it('never resumes on a model without accepts_prefix, nor on a wire format that cannot take one', async () => {
    const result = await read(['noprefix', 'dep-prefill']);
    expect(result.error).toBeInstanceOf(OpenAI.APIError);
    expect(result.error.error).toMatchObject({ code: 'stream_interrupted' });
    expect(result.text).toBe('one two ');
    expect(env.mock.requests.map((r) => r.model)).toEqual(['breaks']);
  });

  it('ends with the original error event when the resume attempt itself fails', async () => {
    env.mock.setBehavior('cont', { status: 400, errorBody: { type: 'error', error: { type: 'invalid_request_error', message: 'prefill refused' } } });
    const result = await read(['prefill']);
    expect(result.error).toBeInstanceOf(OpenAI.APIError);
    expect(result.error.error).toMatchObject({ code: 'stream_interrupted' });
    expect(result.text).toBe('one two ');
    expect(env.mock.requests.map((r) => r.model)).toEqual(['breaks', 'cont']);
  });
});
