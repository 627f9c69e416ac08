import { describe, expect, it } from 'vitest';
import { anthropicAdapter } from './anthropic.ts';
import type { ChatRequest } from './openai-types.ts';
import { fixtureJson, fixtureText, makeTarget, refusal, replayStream } from './shared-fixtures.ts';
import { UpstreamStreamError } from './types.ts';

const DIR = 'anthropic-messages/';
const target = makeTarget({ type: 'vendor_b', endpoint: 'https://api.anthropic.test/', api_key: 'sk-ant', headers: { 'x-extra': '1' } }, 'claude-sonnet-4-5', 'claude');
const build = (request: Partial<ChatRequest>, stream = false, t = target) => {
  const built = anthropicAdapter.buildRequest({ model: 'claude', messages: [], ...request } as ChatRequest, t, { stream });
  return { ...built, json: JSON.parse(built.body) };
};

const weatherTools = (recorded: any[]) =>
  recorded.map((tool) => ({ type: 'function' as const, function: { name: tool.name, description: tool.description, parameters: tool.input_schema } }));

describe('anthropic adapter: requests', () => {
  it('posts to {endpoint}/v1/messages with the key, version and extra headers', () => {
    const built = build({ messages: [{ role: 'user', content: 'hi' }] });
    expect(built.url).toBe('https://api.anthropic.test/v1/messages');
    expect(built.headers).toEqual({ 'content-type': 'application/json', 'x-api-key': 'sk-ant', 'anthropic-version': '2023-06-01', 'x-extra': '1' });
  });

  it('sends the recorded tool-use request for the equivalent chat request', () => {
    const recorded = fixtureJson(DIR + 'messages.tool-use.request.json');
    const { json } = build({
      messages: [{ role: 'user', content: "What's the weather and elevation in Denver?" }],
      tools: weatherTools(recorded.tools),
      tool_choice: 'auto',
      max_tokens: 4096,
    });
    expect(json.model).toBe(recorded.model);
    expect(json.max_tokens).toBe(recorded.max_tokens);
    expect(json.messages).toEqual(recorded.messages);
    expect(json.tool_choice).toEqual(recorded.tool_choice);
    expect(json.tools.map((t: any) => [t.name, t.input_schema])).toEqual(recorded.tools.map((t: any) => [t.name, t.input_schema]));
    expect(json.stream).toBeUndefined();
  });

  it('sends assistant tool calls as tool_use and merges consecutive tool results into one user turn', () => {
    const recorded = fixtureJson(DIR + 'messages.tool-result.request.json');
    const [, assistant] = recorded.messages;
    const { json } = build({
      messages: [
        { role: 'user', content: "What's the weather and elevation in Denver?" },
        {
          role: 'assistant',
          content: assistant.content[0].text,
          tool_calls: assistant.content.slice(1).map((b: any) => ({ id: b.id, type: 'function', function: { name: b.name, arguments: JSON.stringify(b.input) } })),
        },
        { role: 'tool', tool_call_id: 'toolu_01BBTvQnxdxk7vPHD1ytXyGs', content: 'Weather in Denver: Sunny, 22°C' },
        { role: 'tool', tool_call_id: 'toolu_017Q9pGQ9Hx126pyyLLnVqJV', content: 'Elevation of Denver: 650m above sea level' },
      ],
      tools: weatherTools(recorded.tools),
    });
    const expected = structuredClone(recorded.messages);
    for (const block of expected[2].content) delete block.is_error;
    expect(json.messages).toEqual(expected);
  });

  it('sends the recorded streaming tool-result request (temperature, max_tokens, stream)', () => {
    const recorded = JSON.parse(fixtureText(DIR + 'messages.stream.tool-result.request.json'));
    const { json } = build(
      {
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'Two names for a pet pelican' }] },
          {
            role: 'assistant',
            content: ' ',
            tool_calls: [
              { id: 'toolu_01LtHJmixrs9NcWQkK8hu8hj', type: 'function', function: { name: 'pelican_name_generator', arguments: '{}' } },
              { id: 'toolu_01N8a4jWyf116qKTMqKKmjyt', type: 'function', function: { name: 'pelican_name_generator', arguments: '' } },
            ],
          },
          { role: 'tool', tool_call_id: 'toolu_01LtHJmixrs9NcWQkK8hu8hj', content: 'Charles' },
          { role: 'tool', tool_call_id: 'toolu_01N8a4jWyf116qKTMqKKmjyt', content: 'Sammy' },
        ],
        temperature: 1,
        max_completion_tokens: 8192,
        tools: weatherTools(recorded.tools),
      },
      true,
      makeTarget({ type: 'vendor_b' }, recorded.model),
    );
    expect(json.messages).toEqual(recorded.messages);
    expect({ model: json.model, max_tokens: json.max_tokens, temperature: json.temperature, stream: json.stream }).toEqual({
      model: recorded.model,
      max_tokens: 8192,
      temperature: 1,
      stream: true,
    });
  });

  it('moves system and developer messages to the top-level system and merges same-role turns', () => {
    const { json } = build({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: [{ type: 'text', text: 'Use French.' }] },
        { role: 'user', content: 'a' },
        { role: 'user', content: 'b' },
      ],
    });
    expect(json.system).toBe('Be brief.\n\nUse French.');
    expect(json.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }]);
  });

  it('translates image parts: data URLs to base64 sources, http URLs to url sources', () => {
    const { json } = build({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg', detail: 'high' } },
          ],
        },
      ],
    });
    expect(json.messages[0].content).toEqual([
      { type: 'text', text: 'What is this?' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
    ]);
    expect(refusal(() => build({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'ftp://x/y.png' } }] }] })).param).toBe(
      'messages[0].content[0]',
    );
  });

  it('maps tool_choice, parallel_tool_calls, stop, user and the max_tokens fallbacks', () => {
    const tools = [{ type: 'function' as const, function: { name: 'f', parameters: { type: 'object', properties: {} } } }];
    const messages = [{ role: 'user' as const, content: 'x' }];
    expect(build({ messages, tools, tool_choice: 'required', parallel_tool_calls: false }).json.tool_choice).toEqual({ type: 'any', disable_parallel_tool_use: true });
    expect(build({ messages, tools, tool_choice: 'none' }).json.tool_choice).toEqual({ type: 'none' });
    expect(build({ messages, tools, tool_choice: { type: 'function', function: { name: 'f' } } }).json.tool_choice).toEqual({ type: 'tool', name: 'f' });
    expect(build({ messages, tool_choice: 'auto' }).json.tool_choice).toBeUndefined();
    const { json } = build({ messages, stop: 'END', user: 'u-1', top_p: 0.5, frequency_penalty: 0, presence_penalty: 0 });
    expect(json).toMatchObject({ stop_sequences: ['END'], metadata: { user_id: 'u-1' }, top_p: 0.5, max_tokens: 4096 });
    expect(json).not.toHaveProperty('frequency_penalty');
    expect(json).not.toHaveProperty('presence_penalty');
    const withModel = { ...target, model: { max_output_tokens: 1234 } as never };
    expect(build({ messages }, false, withModel).json.max_tokens).toBe(1234);
    expect(build({ messages, max_tokens: 50 }, false, withModel).json.max_tokens).toBe(50);
  });

  it('keeps a trailing assistant message as a prefill, without trailing whitespace', () => {
    const { json } = build({ messages: [{ role: 'user', content: 'Count' }, { role: 'assistant', content: '1, 2, ' }] });
    expect(json.messages[1]).toEqual({ role: 'assistant', content: [{ type: 'text', text: '1, 2,' }] });
    expect(anthropicAdapter.supportsPrefix).toBe(true);
  });

  it('asks for JSON through the system prompt for response_format json_object', () => {
    const { json } = build({ messages: [{ role: 'user', content: 'x' }], response_format: { type: 'json_object' } });
    expect(json.system).toMatch(/valid JSON object/);
  });

  it('refuses temperature above 1 and non-zero penalties with a 400', () => {
    const messages = [{ role: 'user' as const, content: 'x' }];
    const hot = refusal(() => build({ messages, temperature: 1.5 }));
    expect([hot.status, hot.type, hot.code, hot.param]).toEqual([400, 'invalid_request_error', 'invalid_value', 'temperature']);
    expect(hot.message).toMatch(/between 0 and 1/);
    const penalty = refusal(() => build({ messages, presence_penalty: 0.5 }));
    expect([penalty.status, penalty.code, penalty.param]).toEqual([400, 'unsupported_parameter', 'presence_penalty']);
    expect(refusal(() => build({ messages, frequency_penalty: -1 })).param).toBe('frequency_penalty');
    expect(refusal(() => build({ messages, n: 2 })).param).toBe('n');
  });

  it('refuses by name, rather than drops, every field it cannot honour, known or not', () => {
    const messages = [{ role: 'user' as const, content: 'x' }];
    const cases: Array<[Partial<ChatRequest>, string]> = [
      [{ seed: 7 }, 'seed'],
      [{ modalities: ['text', 'audio'], audio: { voice: 'alloy', format: 'wav' } }, 'modalities'],
      [{ audio: { voice: 'alloy', format: 'wav' } }, 'audio'],
      [{ logprobs: true }, 'logprobs'],
      [{ top_logprobs: 3 }, 'top_logprobs'],
      [{ logit_bias: { '50256': -100 } }, 'logit_bias'],
      [{ verbosity: 'low' }, 'verbosity'],
      [{ web_search_options: {} }, 'web_search_options'],
      [{ functions: [{ name: 'f' }] }, 'functions'],
      [{ some_future_parameter: true }, 'some_future_parameter'],
    ];
    for (const [extra, param] of cases) {
      const error = refusal(() => build({ messages, ...extra }));
      expect([error.status, error.code, error.param], param).toEqual([400, 'unsupported_parameter', param]);
    }
    expect(refusal(() => build({ messages, seed: 7 })).message).toMatch(/seed/);
  });

  it('accepts the fields the gateway reads or adds and the hints that do not change the answer, without forwarding them', () => {
    const { json } = build({
      messages: [{ role: 'user', content: 'x' }],
      model: 'claude',
      stream: true,
      stream_options: { include_usage: true },
      fallbacks: ['other'],
      metadata: { a: 'b' },
      store: true,
      prompt_cache_key: 'k',
      prompt_cache_retention: '24h',
      safety_identifier: 's',
      service_tier: 'auto',
      prediction: { type: 'content', content: 'x' },
      n: 1,
      logprobs: false,
      top_logprobs: 0,
      logit_bias: {},
      modalities: ['text'],
      verbosity: 'medium',
      seed: null,
      frequency_penalty: 0,
      presence_penalty: 0,
    } as unknown as Partial<ChatRequest>);
    expect(Object.keys(json).sort()).toEqual(['max_tokens', 'messages', 'model']);
  });

  it('turns reasoning_effort into a thinking budget of at least 1024, below max_tokens, as the recorded thinking request', () => {
    const recorded = JSON.parse(fixtureText(DIR + 'messages.stream.thinking.request.json'));
    const { json } = build(
      { messages: recorded.messages, reasoning_effort: 'minimal', max_completion_tokens: 8192, temperature: 1 },
      true,
      makeTarget({ type: 'vendor_b' }, recorded.model),
    );
    expect(json).toEqual(recorded);
    const messages = [{ role: 'user' as const, content: 'x' }];
    // A limit the client named bounds the thinking too; the budget stays below it.
    expect(build({ messages, reasoning_effort: 'high', max_tokens: 3000 }).json).toMatchObject({ max_tokens: 3000, thinking: { type: 'enabled', budget_tokens: 2999 } });
    expect(build({ messages, reasoning_effort: 'low', max_tokens: 30000 }).json.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    // Without one, the budget comes on top of the default allowance, within the model's output limit.
    expect(build({ messages, reasoning_effort: 'medium' }).json).toMatchObject({ max_tokens: 4096 + 8192, thinking: { budget_tokens: 8192 } });
    const small = { ...target, model: { max_output_tokens: 6000 } as never };
    expect(build({ messages, reasoning_effort: 'medium' }, false, small).json).toMatchObject({ max_tokens: 6000, thinking: { budget_tokens: 5999 } });
    // `none` asks for no thinking; the client's own `thinking` wins over reasoning_effort.
    expect(build({ messages, reasoning_effort: 'none' }).json.thinking).toBeUndefined();
    const own = { type: 'enabled', budget_tokens: 5000 };
    expect(build({ messages, reasoning_effort: 'high', thinking: own, max_tokens: 9000 }).json.thinking).toEqual(own);
    const tight = refusal(() => build({ messages, reasoning_effort: 'low', max_tokens: 1024 }));
    expect([tight.status, tight.code, tight.param]).toEqual([400, 'invalid_value', 'reasoning_effort']);
    expect(refusal(() => build({ messages, reasoning_effort: 'extreme' })).param).toBe('reasoning_effort');
  });

  it('sends the default allowance when the request names no limit, as the API requires one', () => {
    const messages = [{ role: 'user' as const, content: 'x' }];
    const built = anthropicAdapter.buildRequest({ model: 'claude', messages } as ChatRequest, target, { stream: false, defaultMaxTokens: 321 });
    expect(JSON.parse(built.body).max_tokens).toBe(321);
    expect(anthropicAdapter.requiresMaxTokens).toBe(true);
  });

  it('does not send the filled-in temperature or a top_p below 0.95 while thinking, which the API refuses', () => {
    const messages = [{ role: 'user' as const, content: 'x' }];
    const thinking = build({ messages, reasoning_effort: 'low', temperature: 0.7, top_p: 0.9 }).json;
    expect(thinking).not.toHaveProperty('temperature');
    expect(thinking).not.toHaveProperty('top_p');
    expect(build({ messages, reasoning_effort: 'low', temperature: 1, top_p: 0.95 }).json).toMatchObject({ temperature: 1, top_p: 0.95 });
    expect(build({ messages, temperature: 0.7, top_p: 0.9 }).json).toMatchObject({ temperature: 0.7, top_p: 0.9 });
  });
});

describe('anthropic adapter: responses', () => {
  it('translates the recorded text response', () => {
    const completion = anthropicAdapter.parseResponse(fixtureJson(DIR + 'messages.text.response.json'), target);
    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('claude');
    expect(completion.choices[0]).toMatchObject({
      index: 0,
      finish_reason: 'stop',
      message: { role: 'assistant', content: expect.stringMatching(/^Hello! I'm doing well/) },
    });
    expect(completion.usage).toEqual({ prompt_tokens: 12, completion_tokens: 29, total_tokens: 41, prompt_tokens_details: { cached_tokens: 0 } });
  });

  it('translates the recorded tool-use response into tool_calls', () => {
    const completion = anthropicAdapter.parseResponse(fixtureJson(DIR + 'messages.tool-use.response.json'), target);
    const choice = completion.choices[0];
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBe("I'll get the weather and elevation information for Denver.");
    expect(choice.message.tool_calls).toEqual([
      { id: 'toolu_01BBTvQnxdxk7vPHD1ytXyGs', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Denver"}' } },
      { id: 'toolu_017Q9pGQ9Hx126pyyLLnVqJV', type: 'function', function: { name: 'get_elevation', arguments: '{"city":"Denver"}' } },
    ]);
    expect(completion.usage?.total_tokens).toBe(713);
  });

  it('translates the recorded tool-result response', () => {
    const completion = anthropicAdapter.parseResponse(fixtureJson(DIR + 'messages.tool-result.response.json'), target);
    expect(completion.choices[0].message.content).toMatch(/^The weather in Denver is \*\*Sunny\*\*/);
    expect(completion.usage).toMatchObject({ prompt_tokens: 798, completion_tokens: 50 });
  });

  it('counts cache reads and writes as prompt tokens and reads as cached', () => {
    const completion = anthropicAdapter.parseResponse(
      { content: [{ type: 'thinking', thinking: 'hmm' }, { type: 'text', text: 'ok' }], stop_reason: 'max_tokens', usage: { input_tokens: 5, cache_read_input_tokens: 100, cache_creation_input_tokens: 20, output_tokens: 7 } },
      target,
    );
    expect(completion.usage).toEqual({ prompt_tokens: 125, completion_tokens: 7, total_tokens: 132, prompt_tokens_details: { cached_tokens: 100 } });
    expect(completion.choices[0].finish_reason).toBe('length');
    expect(completion.choices[0].message.reasoning_content).toBe('hmm');
  });

  it("reads an unknown stop reason as stop, one named like Object's members too", () => {
    for (const reason of ['something_new', 'constructor', 'toString']) {
      const completion = anthropicAdapter.parseResponse({ content: [{ type: 'text', text: 'ok' }], stop_reason: reason, usage: { input_tokens: 1, output_tokens: 1 } }, target);
      expect(completion.choices[0].finish_reason).toBe('stop');
    }
  });
});

describe('anthropic adapter: streams', () => {
  it('translates the recorded text stream, absorbing ping', () => {
    const out = replayStream(anthropicAdapter, target, fixtureText(DIR + 'messages.stream.text.sse.txt'));
    expect(out.text).toBe('Hello');
    expect(out.finishReason).toBe('stop');
    expect(out.usage).toEqual({ prompt_tokens: 10, completion_tokens: 4, total_tokens: 14, prompt_tokens_details: { cached_tokens: 0 } });
    expect(out.done).toBe(true);
    expect(out.chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: '' });
    expect(new Set(out.chunks.map((c) => c.id)).size).toBe(1);
    expect(out.chunks.every((c) => c.model === 'claude' && c.object === 'chat.completion.chunk')).toBe(true);
    expect(out.chunks.at(-1)?.choices).toEqual([]);
    const translator = anthropicAdapter.createStreamTranslator(target, { includeUsage: true });
    expect(translator.push({ event: 'ping', data: '{"type": "ping"}' })).toEqual([]);
  });

  it('emits no usage chunk unless asked', () => {
    const out = replayStream(anthropicAdapter, target, fixtureText(DIR + 'messages.stream.text.sse.txt'), false);
    expect(out.usage).toBeUndefined();
    expect(out.chunks.every((c) => c.choices.length === 1)).toBe(true);
    expect(out.done).toBe(true);
  });

  it('translates thinking deltas to reasoning_content', () => {
    const out = replayStream(anthropicAdapter, target, fixtureText(DIR + 'messages.stream.thinking.sse.txt'));
    expect(out.reasoning).toMatch(/^The user wants two names for a pet pelican/);
    expect(out.reasoning).toMatch(/Let me give two brief, catchy names:$/);
    expect(out.text).toBe('1. **Pouch** - references their iconic bill pouch\n2. **Pelé** - playful take on "pelican"');
    expect(out.usage?.completion_tokens).toBe(133);
  });

  it('translates the recorded tool-result stream', () => {
    const out = replayStream(anthropicAdapter, target, fixtureText(DIR + 'messages.stream.tool-result.sse.txt'));
    expect(out.text).toMatch(/^Here are two great names for your pet pelican:\n\n1\. \*\*Charles\*\*/);
    expect(out.text.endsWith('feathered friend! 🦅')).toBe(true);
    expect(out.finishReason).toBe('stop');
    expect(out.usage).toMatchObject({ prompt_tokens: 678, completion_tokens: 82, total_tokens: 760 });
  });

  it('assembles parameterless tool calls with their ids, names and {} arguments', () => {
    const out = replayStream(anthropicAdapter, target, fixtureText(DIR + 'messages.stream.tool-use.sse.txt'));
    expect(out.toolCalls).toEqual([
      { id: 'toolu_01LtHJmixrs9NcWQkK8hu8hj', name: 'pelican_name_generator', arguments: '{}' },
      { id: 'toolu_01N8a4jWyf116qKTMqKKmjyt', name: 'pelican_name_generator', arguments: '{}' },
    ]);
    expect(out.finishReason).toBe('tool_calls');
    expect(out.usage).toMatchObject({ prompt_tokens: 542, completion_tokens: 62 });
  });

  it('assembles partial JSON argument deltas, tool index counted apart from text blocks', () => {
    const out = replayStream(anthropicAdapter, target, fixtureText(DIR + 'messages.stream.tool-use-partial-json.sse.txt'));
    expect(out.text).toBe("I'll check the current weather in Paris for you.");
    expect(out.toolCalls).toEqual([{ id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn', name: 'get_weather', arguments: '{"location": "Paris"}' }]);
    const first = out.chunks.find((c) => c.choices[0]?.delta.tool_calls)!;
    expect(first.choices[0].delta.tool_calls).toEqual([{ index: 0, id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn', type: 'function', function: { name: 'get_weather', arguments: '' } }]);
    expect(out.finishReason).toBe('tool_calls');
    expect(out.usage).toMatchObject({ prompt_tokens: 377, completion_tokens: 65 });
  });

  it('throws an UpstreamStreamError for an error event mid-stream', () => {
    const translator = anthropicAdapter.createStreamTranslator(target, { includeUsage: false });
    translator.push({ event: 'message_start', data: '{"type":"message_start","message":{"usage":{"input_tokens":1}}}' });
    let caught: unknown;
    try {
      translator.push({ event: 'error', data: fixtureText(DIR + 'stream-error-event.data.observed.json') });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(UpstreamStreamError);
    expect((caught as UpstreamStreamError).info).toEqual({ status: 529, message: 'Overloaded', type: 'upstream_error', code: 'overloaded', param: null });
    expect(translator.done).toBe(false);
  });
});

describe('anthropic adapter: errors', () => {
  it('maps the recorded error bodies', () => {
    expect(anthropicAdapter.parseError(400, fixtureText(DIR + 'error.400.invalid-request.json'))).toEqual({
      status: 400,
      type: 'invalid_request_error',
      code: null,
      param: null,
      message: "This model does not support effort level 'xhigh'. Supported levels: high, low, max, medium.",
    });
    expect(anthropicAdapter.parseError(404, fixtureText(DIR + 'error.404.not-found.json'))).toEqual({
      status: 404,
      type: 'not_found_error',
      code: 'model_not_found',
      param: null,
      message: 'model: claude-sonet-4-5',
    });
    expect(anthropicAdapter.parseError(529, fixtureText(DIR + 'error.529.overloaded.observed.json'))).toEqual({
      status: 529,
      type: 'upstream_error',
      code: 'overloaded',
      param: null,
      message: 'Overloaded',
    });
  });

  it('flags a prompt that is too long as context_length_exceeded', () => {
    const body = JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' } });
    expect(anthropicAdapter.parseError(400, body).code).toBe('context_length_exceeded');
  });

  it('maps auth and rate-limit types, and tolerates a non-JSON body', () => {
    const err = (type: string) => JSON.stringify({ type: 'error', error: { type, message: 'm' } });
    expect(anthropicAdapter.parseError(401, err('authentication_error'))).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
    expect(anthropicAdapter.parseError(429, err('rate_limit_error'))).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });
    expect(anthropicAdapter.parseError(500, err('constructor'))).toMatchObject({ status: 500, type: 'upstream_error', code: null });
    expect(anthropicAdapter.parseError(502, '<html>Bad gateway</html>')).toEqual({
      status: 502,
      type: 'upstream_error',
      code: null,
      param: null,
      message: '<html>Bad gateway</html>',
    });
  });
});
