import OpenAI from 'openai';
import { beforeEach, describe, expect, it } from 'vitest';
import { api, client, DEMO_KEY, MASTER_KEY, useGateway } from '../_setup.ts';

const env = useGateway('responses.yaml');

/** The object's `store` (answered as OpenAI does; this SDK version's Response type does not declare it). */
const storeOf = (response: object) => (response as { store?: boolean }).store;
beforeEach(() => env.mock.reset());

/** The stored response `id`, polled until its status is `status` (or 1.5 s have passed). */
async function settled(id: string, status: string) {
  let found = await client(env.gw).responses.retrieve(id);
  for (let i = 0; i < 50 && found.status !== status; i++) {
    await new Promise((resolve) => setTimeout(resolve, 30));
    found = await client(env.gw).responses.retrieve(id);
  }
  return found;
}

const post = (body: unknown, key = DEMO_KEY) =>
  fetch(`${env.gw.url}/api/v1/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('POST /api/v1/responses (sync)', () => {
  it('answers the 2.10 object with defaults echoed and usage details', async () => {
    const response = await client(env.gw).responses.create({ model: 'gpt-4o-mini', input: 'hello there', instructions: 'Be brief.' });
    expect(response).toMatchObject({
      object: 'response',
      status: 'completed',
      model: 'gpt-4o-mini',
      error: null,
      incomplete_details: null,
      instructions: [{ role: 'system', content: 'Be brief.' }],
      metadata: {},
      temperature: 0.7,
      top_p: 0.9,
      frequency_penalty: 0,
      presence_penalty: 0,
      parallel_tool_calls: true,
      tool_choice: 'auto',
      tools: [],
    });
    expect(response.id).toMatch(/^resp_/);
    expect(response.completed_at).toBeGreaterThanOrEqual(response.created_at);
    expect(response.output).toHaveLength(1);
    expect(response.output[0]).toMatchObject({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Echo: hello there' }] });
    expect(response.output_text).toBe('Echo: hello there');
    expect(response.usage).toEqual({
      input_tokens: 2,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 3,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 5,
    });
    const sent = env.mock.requests[0].body;
    expect(sent.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hello there' },
    ]);
    expect(sent).toMatchObject({ temperature: 0.7, top_p: 0.9, frequency_penalty: 0, presence_penalty: 0 });
  });

  it('translates message arrays with image parts, tools, and a function call round trip', async () => {
    const tools = [{ type: 'function' as const, name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false }];
    const first = await client(env.gw).responses.create({
      model: 'gpt-4o-mini',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'weather in Paris?' }, { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'auto' }] }],
      tools,
      tool_choice: { type: 'function', name: 'get_weather' },
      max_output_tokens: 50,
    });
    const sent = env.mock.requests[0].body;
    expect(sent.messages[0].content).toEqual([
      { type: 'text', text: 'weather in Paris?' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'auto' } },
    ]);
    expect(sent.tools).toEqual([{ type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: tools[0].parameters, strict: false } }]);
    expect(sent.tool_choice).toEqual({ type: 'function', function: { name: 'get_weather' } });
    expect(sent.max_tokens).toBe(50);
    const call = first.output.find((item) => item.type === 'function_call');
    expect(call).toMatchObject({ type: 'function_call', name: 'get_weather', status: 'completed' });
    expect(JSON.parse((call as OpenAI.Responses.ResponseFunctionToolCall).arguments)).toEqual({ city: 'weather in Paris?' });

    const fc = call as OpenAI.Responses.ResponseFunctionToolCall;
    const second = await client(env.gw).responses.create({
      model: 'gpt-4o-mini',
      input: [
        { role: 'user', content: 'weather in Paris?' },
        { type: 'function_call', call_id: fc.call_id, name: fc.name, arguments: fc.arguments },
        { type: 'function_call_output', call_id: fc.call_id, output: 'sunny' },
      ],
      tools,
    });
    expect(second.output_text).toBe('Tool said: sunny');
    expect(env.mock.requests[1].body.messages.slice(1)).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: fc.call_id, type: 'function', function: { name: 'get_weather', arguments: fc.arguments } }] },
      { role: 'tool', tool_call_id: fc.call_id, content: 'sunny' },
    ]);
  });

  it('validates every parameter range with a 400 naming the param', async () => {
    for (const [body, param] of [
      [{ model: 'gpt-4o-mini', input: 'x', temperature: 2.5 }, 'temperature'],
      [{ model: 'gpt-4o-mini', input: 'x', top_p: 1.5 }, 'top_p'],
      [{ model: 'gpt-4o-mini', input: 'x', presence_penalty: -3 }, 'presence_penalty'],
      [{ model: 'gpt-4o-mini', input: 'x', frequency_penalty: 3 }, 'frequency_penalty'],
      [{ model: 'gpt-4o-mini', input: 'x', max_output_tokens: 0 }, 'max_output_tokens'],
      [{ model: 'gpt-4o-mini', input: 'x', max_tokens: 0 }, 'max_tokens'],
      [{ model: 'gpt-4o-mini' }, 'input'],
      [{ model: 'gpt-4o-mini', input: 'x', tool_choice: 'sometimes' }, 'tool_choice'],
    ] as const) {
      const answer = await post(body);
      expect(answer.status).toBe(400);
      expect((await answer.json()).error).toMatchObject({ type: 'invalid_request_error', param });
    }
    expect(env.mock.requests).toHaveLength(0);
  });

  it('refuses the parameters that carry context held elsewhere, before any upstream call', async () => {
    for (const [param, value] of [['conversation', 'conv_1'], ['prompt', { id: 'pmpt_1' }]] as const) {
      const answer = await post({ model: 'gpt-4o-mini', input: 'and the next one?', [param]: value });
      expect(answer.status, param).toBe(400);
      const { error } = await answer.json();
      expect(error).toMatchObject({ type: 'invalid_request_error', code: 'unsupported_parameter', param });
      expect(error.message).toContain("'input'");
    }
    // null is the same as leaving it out
    expect((await post({ model: 'gpt-4o-mini', input: 'x', conversation: null, previous_response_id: null })).status).toBe(200);
    expect(env.mock.requests).toHaveLength(1);
  });

  it('answers 401 without a valid key', async () => {
    const answer = await post({ model: 'gpt-4o-mini', input: 'x' }, 'sk-bf-nope');
    expect(answer.status).toBe(401);
  });
});

describe('streaming responses', () => {
  it('streams the standard event sequence consumed by responses.stream()', async () => {
    const stream = client(env.gw).responses.stream({ model: 'gpt-4o-mini', input: 'one two three' });
    const types: string[] = [];
    let text = '';
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.output_text.delta') text += event.delta;
    }
    const final = await stream.finalResponse();
    expect(text).toBe('Echo: one two three');
    expect(final.output_text).toBe('Echo: one two three');
    expect(final.status).toBe('completed');
    expect(final.usage).toMatchObject({ input_tokens: 3, output_tokens: 4, total_tokens: 7 });
    const distinct = types.filter((t, i) => t !== types[i - 1]);
    expect(distinct).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
  });

  it('sends event: lines with increasing sequence numbers, usable via create({stream:true})', async () => {
    const answer = await post({ model: 'gpt-4o-mini', input: 'a b', stream: true });
    const raw = await answer.text();
    const frames = raw.split('\n\n').filter(Boolean);
    const sequence = frames.map((frame) => {
      const [eventLine, dataLine] = frame.split('\n');
      const data = JSON.parse(dataLine.slice('data: '.length));
      expect(eventLine).toBe(`event: ${data.type}`);
      return data.sequence_number;
    });
    expect(sequence).toEqual(sequence.map((_, i) => i));
    expect(raw).not.toContain('[DONE]');

    const events = await client(env.gw).responses.create({ model: 'gpt-4o-mini', input: 'c d', stream: true });
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of events) if (event.type === 'response.completed') completed = event.response;
    expect(completed?.output_text ?? completed?.output[0]).toBeTruthy();
  });

  it('streams function calls as function_call items with argument deltas', async () => {
    const stream = client(env.gw).responses.stream({
      model: 'gpt-4o-mini',
      input: 'Paris',
      tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: {} }, strict: false }],
    });
    const types = new Set<string>();
    for await (const event of stream) types.add(event.type);
    const final = await stream.finalResponse();
    expect(types).toContain('response.function_call_arguments.delta');
    expect(types).toContain('response.function_call_arguments.done');
    expect(final.output[0]).toMatchObject({ type: 'function_call', name: 'get_weather', arguments: '{"city":"Paris"}', status: 'completed' });
  });

  it('ends a stream broken after the commit with response.failed and an error the SDK raises', async () => {
    env.mock.setBehavior('cut', { cutAfterChunks: 2, reply: 'alpha beta gamma delta' });
    const stream = client(env.gw).responses.stream({ model: 'mock/cut', input: 'x' });
    const types: string[] = [];
    const error = await (async () => {
      for await (const event of stream) types.push(event.type);
    })().catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(types).toContain('response.output_text.delta');
    expect(types).toContain('response.failed');
    expect(types).not.toContain('response.completed');
  });
});

describe('previous_response_id', () => {
  /** A new call continuing `previous` (whose input was `said`) sends that turn, then its own input. */
  async function expectContinues(previous: { id: string; output_text: string }, said: string) {
    env.mock.reset();
    await client(env.gw).responses.create({ model: 'gpt-4o-mini', input: 'And now?', previous_response_id: previous.id });
    expect(env.mock.requests[0].body.messages).toEqual([
      { role: 'user', content: said },
      { role: 'assistant', content: previous.output_text },
      { role: 'user', content: 'And now?' },
    ]);
  }

  it('continues a stored response: its turns, then the new input, after the new instructions only', async () => {
    const sdk = client(env.gw);
    const first = await sdk.responses.create({ model: 'gpt-4o-mini', instructions: 'Be brief.', input: 'My name is Ada.', store: true });
    const second = await sdk.responses.create({ model: 'gpt-4o-mini', instructions: 'One word.', input: 'What is my name?', previous_response_id: first.id, store: true });
    expect(env.mock.requests[1].body.messages).toEqual([
      { role: 'system', content: 'One word.' },
      { role: 'user', content: 'My name is Ada.' },
      { role: 'assistant', content: first.output_text },
      { role: 'user', content: 'What is my name?' },
    ]);
    // A chain goes on: the third call carries both earlier turns.
    await sdk.responses.create({ model: 'gpt-4o-mini', input: [{ role: 'user', content: 'Thanks.' }], previous_response_id: second.id });
    expect(env.mock.requests[2].body.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
    expect(env.mock.requests[2].body.messages.at(-2)).toEqual({ role: 'assistant', content: second.output_text });
  });

  it('continues a streamed response stored when its stream ended', async () => {
    const stream = client(env.gw).responses.stream({ model: 'gpt-4o-mini', input: 'Streamed hello.', store: true });
    await expectContinues(await stream.finalResponse(), 'Streamed hello.');
  });

  it('continues a tool call: the stored function call, then its output', async () => {
    const tools = [{ type: 'function' as const, name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false }];
    const first = await client(env.gw).responses.create({ model: 'gpt-4o-mini', input: 'Weather in Paris?', tools, store: true });
    const call = first.output.find((item) => item.type === 'function_call') as { call_id: string; arguments: string } | undefined;
    expect(call).toBeTruthy(); // the mock calls the first tool offered
    env.mock.reset();
    await client(env.gw).responses.create({
      model: 'gpt-4o-mini', tools, previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: call!.call_id, output: 'sunny' }],
    });
    const messages = env.mock.requests[0].body.messages;
    expect(messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(messages[1].tool_calls[0]).toMatchObject({ id: call!.call_id, function: { name: 'get_weather', arguments: call!.arguments } });
    expect(messages[2]).toEqual({ role: 'tool', tool_call_id: call!.call_id, content: 'sunny' });
  });

  it('is 404 previous_response_not_found for an unknown, unstored or another caller\'s response, before any upstream call', async () => {
    const unstored = await client(env.gw).responses.create({ model: 'gpt-4o-mini', input: 'not kept', store: false });
    expect(storeOf(unstored)).toBe(false);
    const mine = await client(env.gw).responses.create({ model: 'gpt-4o-mini', input: 'kept', store: true });
    env.mock.reset();
    for (const [id, key] of [['resp_unknown', DEMO_KEY], [unstored.id, DEMO_KEY], [mine.id, MASTER_KEY]] as const) {
      const answer = await post({ model: 'gpt-4o-mini', input: 'again', previous_response_id: id }, key);
      expect(answer.status, id).toBe(404);
      expect((await answer.json()).error).toMatchObject({ type: 'not_found_error', code: 'previous_response_not_found', param: 'previous_response_id' });
    }
    expect((await post({ model: 'gpt-4o-mini', input: 'again', previous_response_id: 7 })).status).toBe(400);
    expect(env.mock.requests).toHaveLength(0);
  });

  it('continues a background response once it completed', async () => {
    const queued = await client(env.gw).responses.create({ model: 'gpt-4o-mini', input: 'Remember 42.', background: true });
    await expectContinues(await settled(queued.id, 'completed'), 'Remember 42.');
  });
});

describe('background responses', () => {
  it('answers queued at once, then GET shows in_progress and completed, only to the creating key', async () => {
    env.mock.setBehavior('slow-50', { delayMs: 400, reply: 'later answer' });
    const started = Date.now();
    const queued = await client(env.gw).responses.create({ model: 'mock/slow-50', input: 'x', background: true });
    expect(Date.now() - started).toBeLessThan(350);
    expect(queued).toMatchObject({ object: 'response', status: 'queued', background: true });

    const early = await client(env.gw).responses.retrieve(queued.id);
    expect(early.status).toBe('in_progress');
    const other = await client(env.gw, MASTER_KEY).responses.retrieve(queued.id).catch((e) => e);
    expect(other).toBeInstanceOf(OpenAI.NotFoundError);

    const done = await settled(queued.id, 'completed');
    expect(done).toMatchObject({ id: queued.id, status: 'completed', output_text: 'later answer' });
    expect(done.usage?.output_tokens).toBe(2);
    const missing = await client(env.gw).responses.retrieve('resp_unknown').catch((e) => e);
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
    // Replaying its events as a stream is refused, not answered with JSON the SDK reads as no events.
    const replay = await client(env.gw).responses.retrieve(queued.id, { stream: true }).catch((e) => e);
    expect(replay).toBeInstanceOf(OpenAI.BadRequestError);
    expect(replay.error).toMatchObject({ code: 'unsupported_parameter', param: 'stream' });
  });

  it('stores a failed background call as failed with the error', async () => {
    const queued = await client(env.gw).responses.create({ model: 'mock/fail-500', input: 'x', background: true });
    const done = await settled(queued.id, 'failed');
    expect(done.status).toBe('failed');
    expect(done.error).toMatchObject({ code: 'upstream_unavailable' });
  });
});

describe('responses in the call log and the store', () => {
  /**
   * The log detail record of the call whose request carried `input`. Found by its input, not as "the newest":
   * an earlier test's background call may write its log late, in between.
   */
  async function logOf(input: string) {
    const admin = { headers: { authorization: `Bearer ${MASTER_KEY}` } };
    for (let i = 0; i < 100; i++) {
      const page = (await (await fetch(`${env.gw.url}/v1/admin/logs?page_size=5`, admin)).json()) as any;
      for (const row of page.data) {
        const detail = (await (await fetch(`${env.gw.url}/v1/admin/logs/${row.id}`, admin)).json()) as any;
        if (detail.request?.input === input) return detail;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`no log of the call with input ${JSON.stringify(input)}`);
  }

  it('logs a responses call in the responses shape on both sides, streamed or not', async () => {
    const answer = await client(env.gw).responses.create({ model: 'gpt-4o-mini', input: 'log me whole' });
    const plain = await logOf('log me whole');
    expect(plain.request).toEqual({ model: 'gpt-4o-mini', input: 'log me whole' });
    expect(plain.response).toEqual(JSON.parse(JSON.stringify({ ...answer, output_text: undefined })));

    const stream = client(env.gw).responses.stream({ model: 'gpt-4o-mini', input: 'stream me whole' });
    for await (const _event of stream);
    const final = await stream.finalResponse();
    const streamed = await logOf('stream me whole');
    expect(streamed.stream).toBe(true);
    expect(streamed.request).toMatchObject({ model: 'gpt-4o-mini', input: 'stream me whole', stream: true });
    expect(streamed.response).toMatchObject({ id: final.id, object: 'response', status: 'completed', usage: final.usage });
    expect(streamed.response.output).toEqual([expect.objectContaining({ type: 'message', content: [expect.objectContaining({ text: 'Echo: stream me whole' })] })]);
  });

  it('stores a streamed call made with store: true, readable by GET as soon as the stream ends', async () => {
    const stream = client(env.gw).responses.stream({ model: 'gpt-4o-mini', input: 'keep this', store: true });
    for await (const _event of stream);
    const final = await stream.finalResponse();
    const stored = await client(env.gw).responses.retrieve(final.id);
    expect(stored).toMatchObject({ id: final.id, status: 'completed', output_text: 'Echo: keep this' });
    const unstored = client(env.gw).responses.stream({ model: 'gpt-4o-mini', input: 'forget this', store: false });
    for await (const _event of unstored);
    const missing = await client(env.gw).responses.retrieve((await unstored.finalResponse()).id).catch((e) => e);
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('stores a call that leaves store out, as OpenAI does, so that previous_response_id continues it', async () => {
    const first = await client(env.gw).responses.create({ model: 'gpt-4o-mini', input: 'Remember 7.' });
    expect(storeOf(first)).toBe(true);
    expect(await client(env.gw).responses.retrieve(first.id)).toMatchObject({ id: first.id, status: 'completed', store: true });
    const next = await client(env.gw).responses.create({ model: 'gpt-4o-mini', input: 'And now?', previous_response_id: first.id });
    expect(next.status).toBe('completed');
  });

  it("does not store by default for an account that keeps no request bodies (request_logging off), unless asked", async () => {
    const off = await api(env.gw, 'PUT', '/v1/settings', { security: { request_logging: false } }, DEMO_KEY);
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    try {
      const unasked = await client(env.gw).responses.create({ model: 'gpt-4o-mini', input: 'private' });
      expect(storeOf(unasked)).toBe(false);
      expect(await client(env.gw).responses.retrieve(unasked.id).catch((e) => e)).toBeInstanceOf(OpenAI.NotFoundError);
      const asked = await client(env.gw).responses.create({ model: 'gpt-4o-mini', input: 'keep', store: true });
      expect((await client(env.gw).responses.retrieve(asked.id)).id).toBe(asked.id);
    } finally {
      await api(env.gw, 'PUT', '/v1/settings', { security: { request_logging: true } }, DEMO_KEY);
    }
  });
});

describe('parameters of the responses body', () => {
  it('passes reasoning.effort on as reasoning_effort and echoes it, with truncation disabled', async () => {
    const response = await client(env.gw).responses.create({ model: 'gpt-4o-mini', input: 'think', reasoning: { effort: 'low', summary: null }, truncation: 'disabled', include: ['reasoning.encrypted_content'] });
    expect(env.mock.requests[0].body.reasoning_effort).toBe('low');
    expect(response).toMatchObject({ status: 'completed', reasoning: { effort: 'low', summary: null }, truncation: 'disabled' });
    const plain = await client(env.gw).responses.create({ model: 'gpt-4o-mini', input: 'plain' });
    expect(plain.reasoning).toEqual({ effort: null, summary: null });
    expect(env.mock.requests[1].body).not.toHaveProperty('reasoning_effort');
  });

  it('passes the chat hints of the same name on (prompt_cache_key, safety_identifier, service_tier, text.verbosity)', async () => {
    await client(env.gw).responses.create({
      model: 'gpt-4o-mini',
      input: 'hint',
      prompt_cache_key: 'pk',
      safety_identifier: 'si',
      service_tier: 'flex',
      text: { verbosity: 'low' },
    });
    expect(env.mock.requests[0].body).toMatchObject({ prompt_cache_key: 'pk', safety_identifier: 'si', service_tier: 'flex', verbosity: 'low' });
  });

  it('refuses by name what it cannot honour, and unknown parameters as OpenAI does, before any upstream call', async () => {
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ truncation: 'auto' }, 'truncation', /truncation 'auto' is not supported/],
      [{ include: ['message.output_text.logprobs'] }, 'include', /'include' takes only 'reasoning.encrypted_content'/],
      [{ max_tool_calls: 3 }, 'max_tool_calls', /'max_tool_calls' is not supported/],
      [{ reasoning: { effort: 'low', summary: 'auto' } }, 'reasoning', /summaries are not supported/],
      [{ top_logprobs: 2 }, 'top_logprobs', /'top_logprobs' is not supported/],
      [{ conversation: 'conv_1' }, 'conversation', /'conversation' is not supported/],
      [{ bogus_parameter: 1 }, 'bogus_parameter', /^Unknown parameter: 'bogus_parameter'\.$/],
      [{ tools: [{ type: 'web_search' }] }, 'tools[0].type', /built-in tool 'web_search'/],
      [{ background: true, stream: true }, 'stream', /not streamed here/],
    ];
    for (const [extra, param, message] of cases) {
      const error = await client(env.gw)
        .responses.create({ model: 'gpt-4o-mini', input: 'x', ...extra } as OpenAI.Responses.ResponseCreateParamsNonStreaming)
        .catch((e) => e);
      expect(error, param).toBeInstanceOf(OpenAI.BadRequestError);
      expect(error.error, param).toMatchObject({ type: 'invalid_request_error', code: 'unsupported_parameter', param, message: expect.stringMatching(message) });
    }
    expect(env.mock.requests).toHaveLength(0);
  });
});

describe('deleting and cancelling a stored response', () => {
  it('deletes a stored response for the key that made it only', async () => {
    const stored = await client(env.gw).responses.create({ model: 'gpt-4o-mini', input: 'keep', store: true });
    const other = await client(env.gw, MASTER_KEY).responses.delete(stored.id).catch((e) => e);
    expect(other).toBeInstanceOf(OpenAI.NotFoundError);
    expect((await client(env.gw).responses.retrieve(stored.id)).id).toBe(stored.id);
    const raw = await fetch(`${env.gw.url}/api/v1/responses/${stored.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${DEMO_KEY}` } });
    expect([raw.status, await raw.json()]).toEqual([200, { id: stored.id, object: 'response', deleted: true }]);
    expect(await client(env.gw).responses.retrieve(stored.id).catch((e) => e)).toBeInstanceOf(OpenAI.NotFoundError);
    const again = await client(env.gw).responses.delete(stored.id).catch((e) => e);
    expect(again).toBeInstanceOf(OpenAI.NotFoundError);
    expect(again.error).toMatchObject({ code: 'response_not_found' });
    const sdk = await client(env.gw).responses.create({ model: 'gpt-4o-mini', input: 'drop', store: true });
    await client(env.gw).responses.delete(sdk.id);
    expect(await client(env.gw).responses.retrieve(sdk.id).catch((e) => e)).toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('cancels a running background response: aborted upstream, cancelled for good, idempotent, owner only', async () => {
    env.mock.setBehavior('slow-50', { delayMs: 600, reply: 'too late' });
    const queued = await client(env.gw).responses.create({ model: 'mock/slow-50', input: 'x', background: true });
    const other = await client(env.gw, MASTER_KEY).responses.cancel(queued.id).catch((e) => e);
    expect(other).toBeInstanceOf(OpenAI.NotFoundError);
    const cancelled = await client(env.gw).responses.cancel(queued.id);
    expect(cancelled).toMatchObject({ id: queued.id, object: 'response', status: 'cancelled', background: true });
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(env.mock.requests[0].aborted).toBe(true);
    expect((await client(env.gw).responses.retrieve(queued.id)).status).toBe('cancelled');
    expect((await client(env.gw).responses.cancel(queued.id)).status).toBe('cancelled');
  });

  it('answers a finished background response as it is, and refuses one made without background', async () => {
    const queued = await client(env.gw).responses.create({ model: 'gpt-4o-mini', input: 'quick', background: true });
    await settled(queued.id, 'completed');
    const finished = await client(env.gw).responses.cancel(queued.id);
    expect(finished).toMatchObject({ id: queued.id, status: 'completed', output: [{ content: [{ text: 'Echo: quick' }] }] });
    const stored = await client(env.gw).responses.create({ model: 'gpt-4o-mini', input: 'sync', store: true });
    const refused = await client(env.gw).responses.cancel(stored.id).catch((e) => e);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((await client(env.gw).responses.cancel('resp_unknown').catch((e) => e)).error).toMatchObject({ code: 'response_not_found' });
  });
});
