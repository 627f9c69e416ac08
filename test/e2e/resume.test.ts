import OpenAI from 'openai';
import { beforeEach, describe, expect, it } from 'vitest';
import { client, recordingLogger, useGateway } from '../_setup.ts';

const logger = recordingLogger();
const env = useGateway('resume.yaml', {}, { logger });
const reply = 'one two three four five';
const cut = { cutAfterChunks: 2, chunkDelayMs: 10, reply };
beforeEach(() => {
  env.mock.reset();
  logger.lines.length = 0;
  env.mock.setBehavior('breaks', cut);
  for (const model of ['cont', 'plain', 'dep-cont', 'c-cont', 'c-refuse', 'g-cont']) env.mock.setBehavior(model, { reply });
  env.mock.setBehavior('v-cont', { reply, prefixStyle: 'continue_final_message' });
  env.mock.setBehavior('ds-cont', { reply, prefixStyle: 'prefix' });
});

type CallRecord = { attempts: Array<{ model: string; status: number; kind?: string }>; response_tokens: number };

/** Stream `model` with `fallbacks`, collecting what the client sees and what the call log got. */
async function read(fallbacks: string[], model = 'primary') {
  const records: CallRecord[] = [];
  const services = env.gw.gateway.runtime.services;
  const previous = services.logs;
  services.logs = { enqueue: (record: CallRecord) => records.push(record) };
  try {
    const stream = await client(env.gw).chat.completions.create({
      model,
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
    await new Promise((resolve) => setTimeout(resolve, 50));
    return { text, finish, ids, usage, error, record: records.at(-1) };
  } finally {
    services.logs = previous;
  }
}

const splices = () => logger.lines.filter((line) => line.message === 'stream resumed').map((line) => line.fields);

describe('stream resume on a prefix-accepting fallback', () => {
  it('continues a broken stream on the fallback as the same chunk stream, logging the splice', async () => {
    const result = await read(['noprefix', 'prefill']);
    expect(result.record?.attempts).toEqual([
      expect.objectContaining({ model: 'primary', status: 200, kind: 'first' }),
      expect.objectContaining({ model: 'primary', status: 0, kind: 'first' }),
      expect.objectContaining({ model: 'prefill', status: 200, kind: 'resumed' }),
    ]);
    expect(result.error).toBeUndefined();
    expect(result.text).toBe(reply);
    expect(result.finish).toBe('stop');
    expect(result.ids.size).toBe(1);
    expect(result.usage).toBeDefined();
    // The model not configured for prefixes was never sent one; the continuation got the text so far.
    expect(env.mock.requests.map((r) => r.model)).toEqual(['breaks', 'cont']);
    const sent = env.mock.requests[1].body.messages;
    expect(sent.at(-1)).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'one two' }] });
    expect(sent[0]).toMatchObject({ role: 'user' });
    expect(splices()).toEqual([{ request: expect.any(String), from: 'main/breaks', to: 'msgs/cont', prefix_chars: 7 }]);
  });

  it('continues on a generateContent fallback too (the answer so far as a trailing model turn)', async () => {
    const result = await read(['gen-prefill']);
    expect(result.error).toBeUndefined();
    expect(result.text).toBe(reply);
    expect(result.finish).toBe('stop');
    expect(env.mock.requests.map((r) => r.model)).toEqual(['breaks', 'g-cont']);
    expect(env.mock.requests[1].body.contents.at(-1)).toMatchObject({ role: 'model', parts: [{ text: 'one two' }] });
    expect(result.record?.attempts.at(-1)).toMatchObject({ model: 'gen-prefill', status: 200, kind: 'resumed' });
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

describe('stream resume on OpenAI-compatible upstreams', () => {
  it.each([
    ['a trailing assistant message', 'compat-cont', 'c-cont', {}],
    ['continue_final_message (vLLM)', 'vllm/v-cont', 'v-cont', { continue_final_message: true, add_generation_prompt: false }],
    ['prefix: true on the message (DeepSeek, Mistral)', 'ds-prefix', 'ds-cont', {}],
  ])('continues on %s: every word once, usage of both legs summed, the splice logged', async (_style, fallback, upstream, flags) => {
    const result = await read([fallback]);
    expect(result.error).toBeUndefined();
    expect(result.text).toBe(reply); // the mock repeats the prefix when the style is wrong
    expect(result.finish).toBe('stop');
    expect(result.ids.size).toBe(1);
    expect(env.mock.requests.map((r) => r.model)).toEqual(['breaks', upstream]);
    const body = env.mock.requests[1].body;
    expect(body).toMatchObject(flags);
    const partial = { role: 'assistant', content: 'one two', ...(upstream === 'ds-cont' ? { prefix: true } : {}) };
    expect(body.messages.at(-1)).toEqual(partial);
    // Cut leg (estimated: the prompt, 'one two') plus the continuation's reported usage ('three four five').
    expect(result.usage).toMatchObject({ completion_tokens: 2 + 3 });
    expect(result.usage!.total_tokens).toBe(result.usage!.prompt_tokens + result.usage!.completion_tokens);
    expect(result.record?.response_tokens).toBe(5); // billed once: no part of the answer twice
    expect(result.record?.attempts.at(-1)).toMatchObject({ status: 200, kind: 'resumed' });
    expect(splices()).toHaveLength(1);
  });

  it('does not send a prefix again to a target that refused one (400), and ends with the error event', async () => {
    env.mock.setBehavior('c-refuse', { reply, refusePrefix: true });
    const first = await read(['refuser']);
    expect(first.error).toBeInstanceOf(OpenAI.APIError);
    expect(first.error.error).toMatchObject({ code: 'stream_interrupted' });
    expect(first.text).toBe('one two ');
    expect(env.mock.requests.map((r) => r.model)).toEqual(['breaks', 'c-refuse']);

    env.mock.reset();
    env.mock.setBehavior('breaks', cut);
    env.mock.setBehavior('c-cont', { reply });
    const second = await read(['refuser', 'compat-cont']);
    expect(second.text).toBe(reply);
    expect(env.mock.requests.map((r) => r.model)).toEqual(['breaks', 'c-cont']); // the refuser was passed over
  });
});

describe('stream resume on the primary itself', () => {
  it('continues a cut stream on the same target when no fallback can, once', async () => {
    env.mock.setBehavior('self-breaks', { ...cut, times: 1, then: { reply } });
    const result = await read([], 'self');
    expect(result.error).toBeUndefined();
    expect(result.text).toBe(reply);
    expect(result.finish).toBe('stop');
    expect(env.mock.requests.map((r) => r.model)).toEqual(['self-breaks', 'self-breaks']);
    expect(env.mock.requests[1].body.messages.at(-1)).toEqual({ role: 'assistant', content: 'one two' });
    expect(splices()).toEqual([expect.objectContaining({ from: 'main/self-breaks', to: 'main/self-breaks' })]);
  });

  it('prefers a fallback that can continue, and resumes only once: a second cut ends with the error event', async () => {
    env.mock.setBehavior('self-breaks', cut);
    env.mock.setBehavior('c-cont', { ...cut, reply });
    const result = await read(['compat-cont'], 'self');
    expect(env.mock.requests.map((r) => r.model)).toEqual(['self-breaks', 'c-cont']);
    expect(result.error).toBeInstanceOf(OpenAI.APIError);
    expect(result.error.error).toMatchObject({ code: 'stream_interrupted' });
    expect(result.text).toBe('one two three '); // never passed off as whole
  });

  it('resumes a stream that stalls mid-answer (idle timeout) within the deadlines', async () => {
    env.mock.setBehavior('c-stalls', { stallAfterChunks: 2, reply, times: 1, then: { reply } });
    const started = Date.now();
    const result = await read([], 'stalls');
    expect(result.error).toBeUndefined();
    expect(result.text).toBe(reply);
    expect(Date.now() - started).toBeLessThan(300 + 1500);
    expect(result.record?.attempts.map((a) => [a.status, a.kind])).toEqual([[200, 'first'], [0, 'first'], [200, 'resumed']]);
  });

  it('resumes a stream that closes without its finish and end marker, instead of passing it off as whole', async () => {
    env.mock.setBehavior('self-breaks', { reply, truncateAfterChunks: 2, times: 1, then: { reply } });
    const result = await read([], 'self');
    expect(result.error).toBeUndefined();
    expect(result.text).toBe(reply);
    expect(env.mock.requests).toHaveLength(2);
  });
});
