/**
 * The Messages API ingress with Anthropic's own SDK, against an upstream of each wire format
 * (compat, vendor_b the Messages API itself, vendor_c generateContent), streamed and not: the
 * answers, every error status in Anthropic's shape, a cut stream's error event, the call log,
 * statistics, count_tokens, model discovery, and a coding agent's request replayed.
 */
import Anthropic from '@anthropic-ai/sdk';
import { beforeEach, describe, expect, it } from 'vitest';
import { DEMO_KEY, useGateway, waitForLogRecord } from '../_setup.ts';

const env = useGateway('messages.yaml');
beforeEach(() => env.mock.reset());

const MODELS_KEY = 'sk-bf-test-models-0000000000000000000000000000';
const anthropic = (key = DEMO_KEY) => new Anthropic({ apiKey: key, baseURL: `${env.gw.url}/api`, maxRetries: 0 });

/** The three upstream formats, by the gateway model that routes to each. */
const UPSTREAMS = [
  { model: 'chat-model', format: 'compat' },
  { model: 'claude-model', format: 'vendor_b' },
  { model: 'gemini-model', format: 'vendor_c' },
] as const;
const MODES = [false, true] as const;
const CASES = UPSTREAMS.flatMap((upstream) => MODES.map((stream) => ({ ...upstream, stream })));

type Params = Omit<Anthropic.MessageCreateParamsNonStreaming, 'stream'>;

/** One call, streamed (the SDK's assembled final message) or not. */
async function ask(params: Params, stream: boolean, key = DEMO_KEY): Promise<Anthropic.Message> {
  if (!stream) return anthropic(key).messages.create(params);
  return anthropic(key).messages.stream(params).finalMessage();
}

const textOf = (message: Anthropic.Message) => message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');

/** The SSE events of a raw answer, parsed. */
async function events(res: Response): Promise<Array<{ event: string; data: any }>> {
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((frame) => frame.trim())
    .map((frame) => {
      const event = /^event: (.*)$/m.exec(frame)?.[1] ?? '';
      const data = /^data: (.*)$/m.exec(frame)?.[1] ?? 'null';
      return { event, data: JSON.parse(data) };
    });
}

const post = (body: unknown, headers: Record<string, string> = {}, path = '/api/v1/messages') =>
  fetch(`${env.gw.url}${path}`, {
    method: 'POST',
    headers: { 'x-api-key': DEMO_KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

/** What the upstream was sent as the system prompt, whatever its format. */
function systemSent(format: string, body: any): string {
  if (format === 'compat') return body.messages[0].role === 'system' ? body.messages[0].content : '';
  if (format === 'vendor_b') return body.system;
  return body.systemInstruction.parts.map((p: any) => p.text).join('');
}

const WEATHER: Anthropic.Tool = {
  name: 'get_weather',
  description: 'Weather in a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

describe.each(CASES)('to a $format upstream (stream: $stream)', ({ model, format, stream }) => {
  it('answers text with a system prompt: msg_ id, the model as written, end_turn and usage', async () => {
    const message = await ask({ model, max_tokens: 100, system: 'Be brief.', messages: [{ role: 'user', content: 'hello there' }] }, stream);
    expect(message).toMatchObject({ type: 'message', role: 'assistant', model, stop_reason: 'end_turn', stop_sequence: null });
    expect(message.id).toMatch(/^msg_/);
    expect(textOf(message)).toBe('Echo: hello there');
    expect(message.usage).toMatchObject({ input_tokens: 2, output_tokens: 3 });
    const sent = env.mock.requests[0]!;
    expect(sent.format).toBe(format);
    expect(systemSent(format, sent.body)).toBe('Be brief.');
  });

  it('carries a multi-turn conversation', async () => {
    const message = await ask(
      {
        model,
        max_tokens: 100,
        messages: [
          { role: 'user', content: 'first question' },
          { role: 'assistant', content: [{ type: 'text', text: 'first answer' }] },
          { role: 'user', content: [{ type: 'text', text: 'second question' }] },
        ],
      },
      stream,
    );
    expect(textOf(message)).toBe('Echo: second question');
  });

  it('round-trips a tool call: tool_use, then the tool_result answered', async () => {
    const question: Anthropic.MessageParam = { role: 'user', content: 'weather in Paris?' };
    const first = await ask({ model, max_tokens: 100, tools: [WEATHER], messages: [question] }, stream);
    expect(first.stop_reason).toBe('tool_use');
    const call = first.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use')!;
    expect(call).toMatchObject({ type: 'tool_use', name: 'get_weather', input: { city: 'weather in Paris?' } });
    expect(call.id).toBeTruthy();
    const second = await ask(
      {
        model,
        max_tokens: 100,
        tools: [WEATHER],
        messages: [question, { role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: '18C and sunny' }] }],
      },
      stream,
    );
    expect(second.stop_reason).toBe('end_turn');
    expect(textOf(second)).toBe('Tool said: 18C and sunny');
  });

  it('sends images (base64)', async () => {
    const message = await ask(
      {
        model,
        max_tokens: 100,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'what is this?' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } }] }],
      },
      stream,
    );
    expect(textOf(message)).toBe('Echo: what is this? (+1 image)');
  });

  it('stops at a stop sequence (told apart from the end of the turn by a Messages-API upstream only)', async () => {
    const message = await ask({ model, max_tokens: 100, stop_sequences: ['there'], messages: [{ role: 'user', content: 'hello there friend' }] }, stream);
    expect(textOf(message)).toBe('Echo: hello ');
    if (format === 'vendor_b') expect(message).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: 'there' });
    else expect(message.stop_reason).toBe('end_turn');
  });

  it('stops at max_tokens', async () => {
    const message = await ask({ model, max_tokens: 2, messages: [{ role: 'user', content: 'hello there friend' }] }, stream);
    expect(textOf(message)).toBe('Echo: hello ');
    expect(message.stop_reason).toBe('max_tokens');
    expect(message.usage.output_tokens).toBe(2);
  });

  it('ends a stream cut after its start with the error event, never message_stop', async () => {
    const upstreamModel = `${format === 'compat' ? 'compat' : format === 'vendor_b' ? 'msgs' : 'gen'}/cut`;
    const res = await post({ model: upstreamModel, max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'one two three four five' }] });
    expect(res.status).toBe(200);
    const list = await events(res);
    expect(list[0]!.event).toBe('message_start');
    expect(list.some((e) => e.event === 'content_block_delta')).toBe(true);
    expect(list.some((e) => e.event === 'message_stop')).toBe(false);
    const last = list.at(-1)!;
    expect(last.event).toBe('error');
    expect(last.data).toMatchObject({ type: 'error', error: { type: 'api_error' } });
    expect(last.data.error.message).toMatch(/broke off|ended/);
  });
});

describe('thinking to a Messages-API upstream', () => {
  it.each(MODES)('answers the signed thinking block as the upstream sent it (stream: %s), and sends it back unchanged', async (stream) => {
    const thinking = { type: 'enabled', budget_tokens: 2048 } as const;
    const question: Anthropic.MessageParam = { role: 'user', content: 'why is the sky blue?' };
    const message = await ask({ model: 'claude-model', max_tokens: 4096, thinking, messages: [question] }, stream);
    expect(message.content[0]).toEqual({ type: 'thinking', thinking: 'Thinking about: why is the sky blue?', signature: expect.stringMatching(/^sig-mock\d+$/) });
    expect(textOf(message)).toBe('Echo: why is the sky blue?');
    expect(env.mock.requests[0]!.body.thinking).toEqual(thinking);

    const next = [question, { role: 'assistant' as const, content: message.content }, { role: 'user' as const, content: 'and at night?' }];
    await ask({ model: 'claude-model', max_tokens: 4096, thinking, messages: next }, stream);
    expect(env.mock.requests[1]!.body.messages[1].content[0]).toEqual(message.content[0]);
  });

  it('reaches a chat upstream as a reasoning effort, its earlier thinking blocks left out', async () => {
    const message = await ask(
      {
        model: 'chat-model',
        max_tokens: 4096,
        thinking: { type: 'enabled', budget_tokens: 2048 },
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: [{ type: 'thinking', thinking: 'hmm', signature: 'sig' }, { type: 'text', text: 'hello' }] },
          { role: 'user', content: 'again' },
        ],
      },
      false,
    );
    expect(textOf(message)).toBe('Echo: again');
    expect(env.mock.requests[0]!.body).toMatchObject({ reasoning_effort: 'low', messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }, { role: 'user', content: 'again' }] });
  });
});

describe('errors in the Messages API shape', () => {
  /** The SDK's error for a call, with its status, body and request id. */
  async function failure(params: Params, key = DEMO_KEY): Promise<InstanceType<typeof Anthropic.APIError>> {
    try {
      await anthropic(key).messages.create(params);
    } catch (error) {
      return error as InstanceType<typeof Anthropic.APIError>;
    }
    throw new Error('the call succeeded');
  }
  const hi = (model: string): Params => ({ model, max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] });

  it('401 authentication_error for a wrong key, in x-api-key or as a bearer token', async () => {
    const error = await failure(hi('chat-model'), 'sk-wrong');
    expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(error.error).toMatchObject({ type: 'error', error: { type: 'authentication_error', message: 'Invalid API key.' } });
    expect(error.requestID).toMatch(/^req_/);
    const bearer = await post(hi('chat-model'), { 'x-api-key': '', authorization: 'Bearer sk-wrong' });
    expect(bearer.status).toBe(401);
    expect(await bearer.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    const missing = await post(hi('chat-model'), { 'x-api-key': '' });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('request-id')).toBe(missing.headers.get('x-request-id'));
  });

  it('a gateway key as a bearer token works too', async () => {
    const res = await post(hi('chat-model'), { 'x-api-key': '', authorization: `Bearer ${DEMO_KEY}` });
    expect(res.status).toBe(200);
    expect(res.headers.get('request-id')).toMatch(/^req_/);
    expect((await res.json()).type).toBe('message');
    // The client's credential never goes upstream: the provider's key does.
    expect(env.mock.requests[0]!.headers.authorization).toBe('Bearer compat-secret');
  });

  it('403 permission_error for a model the key may not use', async () => {
    const error = await failure(hi('claude-model'), MODELS_KEY);
    expect(error).toBeInstanceOf(Anthropic.PermissionDeniedError);
    expect(error.error).toMatchObject({ type: 'error', error: { type: 'permission_error' } });
  });

  it('404 not_found_error for an unknown model', async () => {
    const error = await failure(hi('no-such-model'));
    expect(error).toBeInstanceOf(Anthropic.NotFoundError);
    expect(error.error).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
  });

  it.each([
    [{ model: 'chat-model', messages: [{ role: 'user', content: 'hi' }] }, 'max_tokens'],
    [{ model: 'chat-model', max_tokens: 5, messages: [] }, 'messages'],
    [{ model: 'chat-model', max_tokens: 5, messages: [{ role: 'system', content: 'hi' }] }, 'messages[0].role'],
    [{ model: 'chat-model', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }], frequency_penalty: 1 }, 'frequency_penalty'],
    [{ model: 'chat-model', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }], tool_choice: { type: 'sometimes' } }, 'tool_choice.type'],
    [{ model: 'chat-model', max_tokens: 5, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64' } }] }] }, 'messages[0].content[0].source.media_type'],
  ])('400 invalid_request_error naming the field (%#)', async (body, field) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    const answer = await res.json();
    expect(answer).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(answer.error.message).toContain(field);
  });

  it('400 naming a field a chat upstream cannot carry; a Messages-API fallback that can is served instead', async () => {
    const body = { model: 'chat-model', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }], mcp_servers: [{ type: 'url', url: 'https://mcp.example', name: 'x' }] };
    const refused = await post(body);
    expect(refused.status).toBe(400);
    expect((await refused.json()).error.message).toContain('mcp_servers');
    expect(env.mock.requests).toHaveLength(0);
    const served = await post({ ...body, fallbacks: ['claude-model'] });
    expect(served.status).toBe(200);
    expect(env.mock.requests.map((r) => r.format)).toEqual(['vendor_b']);
    expect(env.mock.requests[0]!.body.mcp_servers).toEqual(body.mcp_servers);
    expect(env.mock.requests[0]!.body.fallbacks).toBeUndefined();
  });

  it('413 request_too_large', async () => {
    const res = await post({ model: 'chat-model', max_tokens: 5, messages: [{ role: 'user', content: 'x'.repeat(70_000) }] });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ type: 'error', error: { type: 'request_too_large' } });
  });

  it('429 rate_limit_error with Retry-After', async () => {
    env.mock.setBehavior('fail-429', { status: 429, retryAfter: '3' });
    const error = await failure(hi('compat/fail-429'));
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    expect(error.error).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    expect(error.headers?.get('retry-after')).toBe('3');
  });

  it('529 overloaded_error when no upstream could serve', async () => {
    const error = await failure(hi('compat/fail-503'));
    expect(error.status).toBe(529);
    expect(error.error).toMatchObject({ type: 'error', error: { type: 'overloaded_error' } });
  });

  it("a Messages-API upstream's error answers pass through unchanged (400, 500 api_error, 529)", async () => {
    const own = { type: 'error', error: { type: 'invalid_request_error', message: 'messages.0.content: upstream says no' } };
    env.mock.setBehavior('fail-400', { status: 400, errorBody: own });
    const bad = await failure(hi('msgs/fail-400'));
    expect(bad).toBeInstanceOf(Anthropic.BadRequestError);
    expect(bad.error).toEqual(own);
    env.mock.setBehavior('m-msgs', { status: 500 });
    const broken = await failure(hi('claude-model'));
    expect(broken).toBeInstanceOf(Anthropic.InternalServerError);
    expect(broken.status).toBe(500);
    expect(broken.error).toEqual({ type: 'error', error: { type: 'api_error', message: 'mock failure 500' } });
    const overloaded = await failure(hi('msgs/fail-529'));
    expect(overloaded.status).toBe(529);
    expect(overloaded.error).toEqual({ type: 'error', error: { type: 'overloaded_error', message: 'mock failure 529' } });
  });
});

describe('call log and statistics', () => {
  it.each(MODES)('logs endpoint messages with the request and answer in their own shape (stream: %s)', async (stream) => {
    const body = { model: 'chat-model', max_tokens: 100, messages: [{ role: 'user' as const, content: 'log me' }] };
    const { data, response } = stream
      ? await (async () => {
          const s = anthropic().messages.stream(body);
          const final = await s.finalMessage();
          return { data: final, response: (await s.withResponse()).response };
        })()
      : await anthropic().messages.create(body).withResponse();
    const id = response.headers.get('request-id')!;
    expect(id).toBe(response.headers.get('x-request-id'));
    const row = await waitForLogRecord(env.gw, id);
    expect(row).toMatchObject({ endpoint: 'messages', model: 'chat-model', stream, status: 'success', request_tokens: 2, response_tokens: 3 });
    expect(row.request).toEqual(stream ? { ...body, stream: true } : body);
    expect(row.response).toMatchObject({ type: 'message', role: 'assistant', model: 'chat-model', content: [{ type: 'text', text: data.content[0]!.type === 'text' ? data.content[0].text : '' }], stop_reason: 'end_turn' });
  });

  it('statistics count the calls', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const usage = async () => {
      const res = await fetch(`${env.gw.url}/v1/statistics/usage?start_date=${today}&end_date=${today}`, { headers: { authorization: `Bearer ${DEMO_KEY}` } });
      return (await res.json()).summary as { request_count: number; prompt_tokens: number };
    };
    const before = await usage();
    const { response } = await anthropic().messages.create({ model: 'claude-model', max_tokens: 100, messages: [{ role: 'user', content: 'count me in' }] }).withResponse();
    await waitForLogRecord(env.gw, response.headers.get('request-id')!);
    const after = await usage();
    expect(after.request_count).toBe(before.request_count + 1);
    expect(after.prompt_tokens).toBe(before.prompt_tokens + 3);
  });
});

describe('count_tokens', () => {
  it('asks a Messages-API upstream for its count, and estimates for any other', async () => {
    const params = { messages: [{ role: 'user' as const, content: 'one two three' }], system: 'be brief' };
    expect(await anthropic().messages.countTokens({ model: 'claude-model', ...params })).toEqual({ input_tokens: 5 });
    expect(env.mock.requests[0]).toMatchObject({ path: '/v1/messages/count_tokens', body: { model: 'm-msgs', ...params } });
    const estimated = await anthropic().messages.countTokens({ model: 'chat-model', ...params });
    expect(estimated.input_tokens).toBeGreaterThan(5);
    expect(env.mock.requests).toHaveLength(1);
  });

  it('refuses a model the key may not use, and an unknown one', async () => {
    const msgs = [{ role: 'user' as const, content: 'hi' }];
    await expect(anthropic(MODELS_KEY).messages.countTokens({ model: 'claude-model', messages: msgs })).rejects.toBeInstanceOf(Anthropic.PermissionDeniedError);
    await expect(anthropic().messages.countTokens({ model: 'nope', messages: msgs })).rejects.toBeInstanceOf(Anthropic.NotFoundError);
  });
});

describe('model discovery', () => {
  it("lists the key's models in Anthropic's format with anthropic-version, OpenAI's without", async () => {
    const page = await anthropic(MODELS_KEY).models.list();
    expect(page.data).toEqual([{ type: 'model', id: 'chat-model', display_name: 'Chat model', created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) }]);
    const raw = await (await fetch(`${env.gw.url}/api/v1/models`, { headers: { 'x-api-key': MODELS_KEY, 'anthropic-version': '2023-06-01' } })).json();
    expect(raw).toMatchObject({ has_more: false, first_id: 'chat-model', last_id: 'chat-model' });
    const openai = await (await fetch(`${env.gw.url}/api/v1/models`, { headers: { authorization: `Bearer ${MODELS_KEY}` } })).json();
    expect(openai).toMatchObject({ object: 'list', data: [{ id: 'chat-model', object: 'model' }] });
    expect(await anthropic().models.retrieve('claude-model')).toMatchObject({ type: 'model', id: 'claude-model', display_name: 'Messages model' });
    await expect(anthropic(MODELS_KEY).models.retrieve('claude-model')).rejects.toBeInstanceOf(Anthropic.NotFoundError);
  });

  it('pages with limit and after_id', async () => {
    const all = (await anthropic().models.list({ limit: 1000 })).data.map((m) => m.id);
    expect(all.length).toBeGreaterThan(3);
    const first = await (await fetch(`${env.gw.url}/api/v1/models?limit=2`, { headers: { 'x-api-key': DEMO_KEY, 'anthropic-version': '2023-06-01' } })).json();
    expect(first).toMatchObject({ has_more: true, first_id: all[0], last_id: all[1] });
    const next = await (await fetch(`${env.gw.url}/api/v1/models?limit=2&after_id=${encodeURIComponent(all[1]!)}`, { headers: { 'x-api-key': DEMO_KEY, 'anthropic-version': '2023-06-01' } })).json();
    expect(next.data.map((m: { id: string }) => m.id)).toEqual(all.slice(2, 4));
  });
});
