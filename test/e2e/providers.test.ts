import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import { beforeEach, describe, expect, it } from 'vitest';
import { client, useGateway, waitForLogRecord } from '../_setup.ts';

const env = useGateway('providers.yaml');
beforeEach(() => env.mock.reset());

/** Each provider type: the model the client names, what the mock must see (path, auth header). */
const TYPES = [
  { type: 'compat', model: 'compat/m-compat', path: /^\/v1\/chat\/completions$/, auth: ['authorization', 'Bearer compat-secret'] },
  { type: 'vendor_b', model: 'msgs/m-msgs', path: /^\/v1\/messages$/, auth: ['x-api-key', 'msgs-secret'] },
  { type: 'vendor_c', model: 'gen/m-gen', path: /^\/v1beta\/models\/m-gen:(stream)?generateContent/i, auth: ['x-goog-api-key', 'gen-secret'] },
  { type: 'vendor_d', model: 'dep/m-dep', path: /^\/openai\/deployments\/m-dep\/chat\/completions\?api-version=2024-10-21$/, auth: ['api-key', 'dep-secret'] },
  { type: 'custom', model: 'cust/m-cust', path: /^\/custom\/m-cust\/chat\/completions$/, auth: ['authorization', 'Bearer cust-secret'] },
] as const;

const weatherTool: OpenAI.ChatCompletionTool = {
  type: 'function',
  function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

async function collect(stream: AsyncIterable<OpenAI.ChatCompletionChunk>) {
  let text = '';
  let finish: string | null = null;
  let usage: OpenAI.CompletionUsage | undefined;
  const calls: Record<number, { id?: string; name?: string; arguments: string }> = {};
  for await (const chunk of stream) {
    for (const choice of chunk.choices) {
      text += choice.delta?.content ?? '';
      finish = choice.finish_reason ?? finish;
      for (const call of choice.delta?.tool_calls ?? []) {
        const slot = (calls[call.index] ??= { arguments: '' });
        slot.id ??= call.id;
        slot.name ??= call.function?.name;
        slot.arguments += call.function?.arguments ?? '';
      }
    }
    if (chunk.usage) usage = chunk.usage;
  }
  return { text, finish, usage, calls: Object.values(calls) };
}

describe.each(TYPES)('provider type $type', ({ type, model, path, auth }) => {
  it('answers a chat completion, with the format path and auth header', async () => {
    const completion = await client(env.gw).chat.completions.create({ model, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hello there' }] });
    expect(completion).toMatchObject({ object: 'chat.completion', model, choices: [{ index: 0, message: { role: 'assistant', content: 'Echo: hello there' }, finish_reason: 'stop' }] });
    expect(completion.usage).toMatchObject({ prompt_tokens: 2, completion_tokens: 3, total_tokens: 5 });
    expect(env.mock.requests).toHaveLength(1);
    expect(env.mock.requests[0].format).toBe(type === 'custom' ? 'compat' : type);
    expect(env.mock.requests[0].path).toMatch(path);
    expect(env.mock.requests[0].headers[auth[0]]).toBe(auth[1]);
    if (type === 'custom') expect(env.mock.requests[0].headers['x-tenant']).toBe('acme');
  });

  it('streams chunks ending in [DONE], with usage when asked', async () => {
    const stream = await client(env.gw).chat.completions.create({ model, messages: [{ role: 'user', content: 'one two three' }], stream: true, stream_options: { include_usage: true } });
    const result = await collect(stream);
    expect(result).toMatchObject({ text: 'Echo: one two three', finish: 'stop' });
    expect(result.usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 });
    expect(env.mock.requests[0].path).toMatch(path);
  });

  it('round-trips a tool call (non-stream) and a tool result', async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Paris' }];
    const first = await client(env.gw).chat.completions.create({ model, messages, tools: [weatherTool] });
    expect(first.choices[0].finish_reason).toBe('tool_calls');
    const call = first.choices[0].message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(call.function.name).toBe('get_weather');
    expect(JSON.parse(call.function.arguments)).toEqual({ city: 'Paris' });
    const second = await client(env.gw).chat.completions.create({
      model,
      tools: [weatherTool],
      messages: [...messages, first.choices[0].message as OpenAI.ChatCompletionMessageParam, { role: 'tool', tool_call_id: call.id, content: 'sunny' }],
    });
    expect(second.choices[0].message.content).toBe('Tool said: sunny');
  });

  it('streams a tool call with argument deltas', async () => {
    const stream = await client(env.gw).chat.completions.create({ model, messages: [{ role: 'user', content: 'Rome' }], tools: [weatherTool], stream: true });
    const result = await collect(stream);
    expect(result.finish).toBe('tool_calls');
    expect(result.calls).toHaveLength(1);
    expect(result.calls[0]).toMatchObject({ name: 'get_weather' });
    expect(result.calls[0].id).toBeTruthy();
    expect(JSON.parse(result.calls[0].arguments)).toEqual({ city: 'Rome' });
  });

  it('passes an image part in the format of the upstream, stream and not', async () => {
    const content: OpenAI.ChatCompletionContentPart[] = [
      { type: 'text', text: 'what is this' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUg==' } },
    ];
    const completion = await client(env.gw).chat.completions.create({ model, messages: [{ role: 'user', content }] });
    expect(completion.choices[0].message.content).toBe('Echo: what is this (+1 image)');
    const stream = await client(env.gw).chat.completions.create({ model, messages: [{ role: 'user', content }], stream: true });
    expect((await collect(stream)).text).toBe('Echo: what is this (+1 image)');
  });

  it('serves the responses interface, sync and streamed', async () => {
    const response = await client(env.gw).responses.create({ model, input: 'hi there', instructions: 'Be brief.' });
    expect(response).toMatchObject({ status: 'completed', model, output_text: 'Echo: hi there' });
    expect(response.usage).toMatchObject({ input_tokens: 2, output_tokens: 3, total_tokens: 5 });
    const stream = client(env.gw).responses.stream({ model, input: [{ role: 'user', content: [{ type: 'input_text', text: 'a b' }] }] });
    let deltas = '';
    for await (const event of stream) if (event.type === 'response.output_text.delta') deltas += event.delta;
    const final = await stream.finalResponse();
    expect(deltas).toBe('Echo: a b');
    expect(final.status).toBe('completed');
    expect(final.usage?.total_tokens).toBe(5);
  });
});

describe('the mock upstream checks the auth header of each format', () => {
  it('refuses a call without the header its format expects', async () => {
    const post = (path: string, headers: Record<string, string>) =>
      fetch(`${env.mock.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{"model":"m"}' }).then((r) => r.status);
    expect(await post('/v1/messages', { 'anthropic-version': '2023-06-01' })).toBe(401);
    expect(await post('/v1/messages', { 'x-api-key': 'k' })).toBe(401);
    expect(await post('/v1beta/models/m:generateContent', { authorization: 'Bearer k' })).toBe(401);
    expect(await post('/openai/deployments/m/chat/completions?api-version=2024-10-21', { authorization: 'Bearer k' })).toBe(401);
    expect(await post('/v1/chat/completions', { 'x-api-key': 'k' })).toBe(401);
    expect(await post('/v1/chat/completions', { authorization: 'Bearer k' })).toBe(200);
  });
});

/** A chat call through the SDK: the answer or the SDK's error, with the gateway's request id. */
async function chat(body: Record<string, unknown>) {
  const params = { messages: [{ role: 'user', content: 'hello' }], ...body } as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming;
  try {
    const { data, response } = await client(env.gw).chat.completions.create(params).withResponse();
    return { completion: data, id: response.headers.get('x-request-id')!, error: undefined };
  } catch (error) {
    return { completion: undefined, id: (error as InstanceType<typeof OpenAI.APIError>).headers?.get('x-request-id') ?? '', error: error as InstanceType<typeof OpenAI.APIError> };
  }
}

describe('a parameter a wire format cannot carry', () => {
  it('is the 400 naming it, never a 503, with no upstream call, no retry and a truthful call log', async () => {
    const cases: Array<[string, Record<string, unknown>, string, string]> = [
      ['msgs/m-msgs', { n: 2 }, 'unsupported_parameter', 'n'],
      ['msgs/m-msgs', { logprobs: true }, 'unsupported_parameter', 'logprobs'],
      ['msgs/m-msgs', { logit_bias: { '50256': -100 } }, 'unsupported_parameter', 'logit_bias'],
      ['msgs/m-msgs', { frequency_penalty: 0.5 }, 'unsupported_parameter', 'frequency_penalty'],
      ['msgs/m-msgs', { temperature: 1.5 }, 'invalid_value', 'temperature'],
      ['gen/m-gen', { n: 2 }, 'unsupported_parameter', 'n'],
      ['msgs/m-msgs', { messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } }] }] }, 'unsupported_parameter', 'messages[0].content[0]'],
    ];
    for (const [model, extra, code, param] of cases) {
      const { error } = await chat({ model, ...extra });
      expect(error, param).toBeInstanceOf(OpenAI.BadRequestError);
      expect(error!.error, param).toMatchObject({ type: 'invalid_request_error', code, param });
    }
    expect(env.mock.requests).toHaveLength(0);
    const { id } = await chat({ model: 'msgs/m-msgs', n: 2 });
    expect((await waitForLogRecord(env.gw, id)).attempts).toEqual([
      { model: 'msgs/m-msgs', provider: 'msgs', status: null, error_code: 'unsupported_parameter', latency_ms: 0, kind: 'first' },
    ]);
  });

  it('never counts against the circuit breaker', async () => {
    // Past the breaker's threshold (5): an open circuit would show in the next call's log.
    for (let i = 0; i < 7; i++) expect((await chat({ model: 'gen/m-gen', logprobs: true })).error?.status).toBe(400);
    const { completion, id } = await chat({ model: 'gen/m-gen' });
    expect(completion?.choices[0].message.content).toBe('Echo: hello');
    expect((await waitForLogRecord(env.gw, id)).attempts).toEqual([expect.objectContaining({ provider: 'gen', status: 200, error_code: null, kind: 'first' })]);
  });

  it('falls over to a fallback whose upstream can carry it', async () => {
    const { completion, id } = await chat({ model: 'msgs/m-msgs', n: 2, fallbacks: ['compat/m-compat'] });
    expect(completion?.model).toBe('compat/m-compat');
    expect(env.mock.requests).toHaveLength(1);
    expect(env.mock.requests[0]).toMatchObject({ format: 'compat', body: { n: 2 } });
    expect((await waitForLogRecord(env.gw, id)).attempts).toEqual([
      expect.objectContaining({ provider: 'msgs', status: null, error_code: 'unsupported_parameter', kind: 'first' }),
      expect.objectContaining({ provider: 'compat', status: 200, kind: 'fallback' }),
    ]);
  });

  it('is refused rather than dropped: seed and audio on Messages, parallel_tool_calls false on generateContent, unknown fields', async () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['msgs/m-msgs', { seed: 7 }, 'seed'],
      ['msgs/m-msgs', { modalities: ['text', 'audio'], audio: { voice: 'alloy', format: 'wav' } }, 'modalities'],
      ['gen/m-gen', { modalities: ['text', 'audio'], audio: { voice: 'alloy', format: 'wav' } }, 'modalities'],
      ['gen/m-gen', { parallel_tool_calls: false, tools: [weatherTool] }, 'parallel_tool_calls'],
      ['msgs/m-msgs', { web_search_options: {} }, 'web_search_options'],
      ['gen/m-gen', { some_future_parameter: true }, 'some_future_parameter'],
    ];
    for (const [model, extra, param] of cases) {
      const { error } = await chat({ model, ...extra });
      expect(error?.status, param).toBe(400);
      expect(error!.error, param).toMatchObject({ code: 'unsupported_parameter', param });
    }
    expect(env.mock.requests).toHaveLength(0);
  });

  it('is translated where the upstream has the feature: reasoning_effort as thinking, seed as generationConfig.seed', async () => {
    expect((await chat({ model: 'msgs/m-msgs', reasoning_effort: 'low', max_completion_tokens: 5000 })).error).toBeUndefined();
    expect(env.mock.requests[0].body).toMatchObject({ max_tokens: 5000, thinking: { type: 'enabled', budget_tokens: 2048 } });
    // The gateway's default temperature (0.7) is not sent while thinking: the API takes only 1.
    expect(env.mock.requests[0].body.temperature).toBeUndefined();
    expect((await chat({ model: 'gen/m-gen', reasoning_effort: 'medium', seed: 3 })).error).toBeUndefined();
    expect(env.mock.requests[1].body.generationConfig).toMatchObject({ seed: 3, thinkingConfig: { thinkingBudget: 8192 } });
  });
});

describe('the completion limit', () => {
  it('is not sent to an OpenAI-wire upstream when the client named none (a reasoning model refuses max_tokens)', async () => {
    const refusal = JSON.parse(readFileSync('test/fixtures/upstream/openai-chat/error.400.unsupported-parameter.json', 'utf8'));
    env.mock.setBehavior('m-reasoning', { maxTokensError: refusal });
    const { completion } = await chat({ model: 'compat/m-reasoning' });
    expect(completion?.choices[0].message.content).toBe('Echo: hello');
    expect(env.mock.requests[0].body).not.toHaveProperty('max_tokens');
    expect(env.mock.requests[0].body).not.toHaveProperty('max_completion_tokens');
    for (const model of ['dep/m-dep', 'gen/m-gen']) {
      expect((await chat({ model })).error).toBeUndefined();
    }
    expect(env.mock.requests[1].body).not.toHaveProperty('max_tokens');
    expect(env.mock.requests[2].body.generationConfig).not.toHaveProperty('maxOutputTokens');
    // What the client names is passed on as named (and the upstream's own refusal relayed).
    const named = await chat({ model: 'compat/m-reasoning', max_tokens: 10 });
    expect(named.error?.status).toBe(400);
    expect(named.error?.error).toMatchObject({ code: 'unsupported_parameter', param: 'max_tokens' });
  });

  it('is the default on the Messages API, which requires one, lowered to what the context leaves', async () => {
    expect((await chat({ model: 'msgs/m-msgs' })).error).toBeUndefined();
    expect(env.mock.requests[0].body.max_tokens).toBe(4096);
    expect((await chat({ model: 'tight-msgs' })).error).toBeUndefined();
    expect(env.mock.requests[1].body.max_tokens).toBeGreaterThan(40);
    expect(env.mock.requests[1].body.max_tokens).toBeLessThan(60);
  });
});
