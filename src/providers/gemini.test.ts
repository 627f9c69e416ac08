import { describe, expect, it } from 'vitest';
import { geminiAdapter } from './gemini.ts';
import type { ChatRequest } from './openai-types.ts';
import { fixtureJson, fixtureText, makeTarget, refusal, replayStream } from './shared-fixtures.ts';
import { UpstreamStreamError } from './types.ts';

const DIR = 'gemini/';
const target = makeTarget({ type: 'vendor_c', endpoint: 'https://gl.test/', api_key: 'g-key', headers: { 'x-extra': '1' } }, 'gemini-2.0-flash', 'flash');
const build = (request: Partial<ChatRequest>, stream = false) => {
  const built = geminiAdapter.buildRequest({ model: 'flash', messages: [], ...request } as ChatRequest, target, { stream });
  return { ...built, json: JSON.parse(built.body) };
};
const recordedTools = (declarations: any[]) =>
  declarations.map((d) => ({ type: 'function' as const, function: { name: d.name, description: d.description, parameters: d.parameters ?? d.parameters_json_schema } }));

describe('gemini adapter: requests', () => {
  it('posts to generateContent, or streamGenerateContent?alt=sse, with x-goog-api-key and extra headers', () => {
    const built = build({ messages: [{ role: 'user', content: 'hi' }] });
    expect(built.url).toBe('https://gl.test/v1beta/models/gemini-2.0-flash:generateContent');
    expect(built.headers).toEqual({ 'content-type': 'application/json', 'x-goog-api-key': 'g-key', 'x-extra': '1' });
    expect(build({ messages: [] }, true).url).toBe('https://gl.test/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse');
  });

  it('sends the recorded text request (systemInstruction + user content)', () => {
    const recorded = fixtureJson(DIR + 'generateContent.text.request.json');
    const { json } = build({ messages: [{ role: 'system', content: 'You are a chatbot.' }, { role: 'user', content: 'Hello!' }] });
    expect(json.contents).toEqual(recorded.contents);
    expect(json.systemInstruction.parts).toEqual(recorded.systemInstruction.parts);
  });

  it('sends the recorded stream text request with temperature 0', () => {
    const recorded = fixtureJson(DIR + 'streamGenerateContent.sse.text.request.json');
    const { json } = build({ messages: [{ role: 'system', content: 'You are a helpful chatbot.' }, { role: 'user', content: 'What is the capital of France?' }], temperature: 0 }, true);
    expect(json.generationConfig).toEqual(recorded.generationConfig);
    expect(json.contents).toEqual(recorded.contents);
  });

  it('sends function declarations and toolConfig for the recorded function-call request', () => {
    const recorded = fixtureJson(DIR + 'generateContent.function-call.request.json');
    const { json } = build({
      messages: [{ role: 'user', content: 'What is the largest city in the user country?' }],
      tools: recordedTools(recorded.tools[0].functionDeclarations),
      tool_choice: 'required',
    });
    expect(json.contents).toEqual(recorded.contents);
    expect(json.tools[0].functionDeclarations.map((d: any) => [d.name, d.parameters])).toEqual(
      recorded.tools[0].functionDeclarations.map((d: any) => [d.name, d.parameters]),
    );
    expect(json.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY' } });
  });

  it('sends function calls and responses, naming the function from the earlier call id', () => {
    const recorded = fixtureJson(DIR + 'generateContent.function-response.request.json');
    const { json } = build({
      messages: [
        { role: 'user', content: 'What is the largest city in the user country?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'pyd_ai_3fa5644dae1d4aad997ae39c70006fbd', type: 'function', function: { name: 'get_user_country', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'pyd_ai_3fa5644dae1d4aad997ae39c70006fbd', content: '{"return_value":"Mexico"}' },
      ],
    });
    expect(json.contents).toEqual(recorded.contents);
    const unknown = refusal(() => build({ messages: [{ role: 'tool', tool_call_id: 'nope', content: 'x' }] }));
    expect([unknown.status, unknown.param]).toEqual([400, 'messages[0].tool_call_id']);
  });

  it('round-trips a thoughtSignature carried in the tool call id', () => {
    const recorded = fixtureJson(DIR + 'streamGenerateContent.sse.function-response.request.json');
    const call = recorded.contents[1].parts[0];
    const id = `${call.functionCall.id}__thought__${call.thoughtSignature}`;
    const { json } = build({
      messages: [
        { role: 'user', content: 'What is the capital of the user country? Call the tool' },
        { role: 'assistant', content: '', tool_calls: [{ id, type: 'function', function: { name: 'get_country', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: id, content: '{"return_value": "Mexico"}' },
      ],
      tools: recordedTools(recorded.tools[0].functionDeclarations),
    });
    expect(json.contents).toEqual(recorded.contents);
    // additionalProperties is not part of the API's Schema subset and would be rejected.
    expect(json.tools[0].functionDeclarations[0].parameters).toEqual({ properties: {}, type: 'object' });
  });

  it('translates image parts: data URLs to inlineData, http URLs to fileData', () => {
    const { json } = build({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Describe' },
            { type: 'image_url', image_url: { url: 'data:image/webp;base64,UklGRg==' } },
            { type: 'image_url', image_url: { url: 'https://example.com/a.png?x=1' } },
            // An extension named like one of Object's members is just unknown (the default type).
            { type: 'image_url', image_url: { url: 'https://example.com/b.constructor' } },
          ],
        },
      ],
    });
    expect(json.contents[0].parts).toEqual([
      { text: 'Describe' },
      { inlineData: { mimeType: 'image/webp', data: 'UklGRg==' } },
      { fileData: { mimeType: 'image/png', fileUri: 'https://example.com/a.png?x=1' } },
      { fileData: { mimeType: 'image/jpeg', fileUri: 'https://example.com/b.constructor' } },
    ]);
  });

  it('maps generation parameters, JSON modes and a trailing prefill turn', () => {
    const { json } = build({
      messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: '{"a":' }],
      top_p: 0.9,
      max_tokens: 100,
      stop: ['END'],
      presence_penalty: 0.5,
      frequency_penalty: 0.2,
      response_format: { type: 'json_object' },
      tools: [{ type: 'function', function: { name: 'f' } }],
      tool_choice: { type: 'function', function: { name: 'f' } },
    });
    expect(json.generationConfig).toEqual({ topP: 0.9, maxOutputTokens: 100, stopSequences: ['END'], presencePenalty: 0.5, frequencyPenalty: 0.2, responseMimeType: 'application/json' });
    expect(json.contents.at(-1)).toEqual({ role: 'model', parts: [{ text: '{"a":' }] });
    expect(json.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['f'] } });
    const schema = { type: 'object', properties: { n: { type: ['integer', 'null'] } }, additionalProperties: false, required: ['n'] };
    const structured = build({ messages: [], response_format: { type: 'json_schema', json_schema: { name: 's', schema } } }).json;
    expect(structured.generationConfig).toEqual({
      responseMimeType: 'application/json',
      responseSchema: { type: 'object', properties: { n: { type: 'integer', nullable: true } }, required: ['n'] },
    });
    const withRef = { type: 'object', properties: { a: { $ref: '#/$defs/A' } }, $defs: { A: { type: 'string' } } };
    expect(build({ messages: [], tools: [{ type: 'function', function: { name: 'g', parameters: withRef } }] }).json.tools[0].functionDeclarations[0]).toEqual({
      name: 'g',
      parametersJsonSchema: withRef,
    });
    expect(refusal(() => build({ messages: [], n: 3 })).code).toBe('unsupported_parameter');
    expect(geminiAdapter.supportsPrefix).toBe(true);
  });

  it('maps seed, top_k and reasoning_effort (thinkingConfig.thinkingBudget; none is 0)', () => {
    const messages = [{ role: 'user' as const, content: 'x' }];
    expect(build({ messages, seed: 42, top_k: 5, reasoning_effort: 'low' }).json.generationConfig).toEqual({ seed: 42, topK: 5, thinkingConfig: { thinkingBudget: 1024 } });
    expect(build({ messages, reasoning_effort: 'high' }).json.generationConfig.thinkingConfig).toEqual({ thinkingBudget: 24576 });
    expect(build({ messages, reasoning_effort: 'none' }).json.generationConfig.thinkingConfig).toEqual({ thinkingBudget: 0 });
    expect(build({ messages }).json.generationConfig).toEqual({});
    const unknown = refusal(() => build({ messages, reasoning_effort: 'extreme' }));
    expect([unknown.code, unknown.param]).toEqual(['invalid_value', 'reasoning_effort']);
  });

  it('refuses by name, rather than drops, every field it cannot honour, known or not', () => {
    const messages = [{ role: 'user' as const, content: 'x' }];
    const cases: Array<[Partial<ChatRequest>, string]> = [
      [{ parallel_tool_calls: false }, 'parallel_tool_calls'],
      [{ modalities: ['text', 'audio'], audio: { voice: 'alloy', format: 'wav' } }, 'modalities'],
      [{ audio: { voice: 'alloy', format: 'wav' } }, 'audio'],
      [{ logprobs: true }, 'logprobs'],
      [{ logit_bias: { '1': 5 } }, 'logit_bias'],
      [{ thinking: { type: 'enabled', budget_tokens: 2048 } }, 'thinking'],
      [{ some_future_parameter: 1 }, 'some_future_parameter'],
    ];
    for (const [extra, param] of cases) {
      const error = refusal(() => build({ messages, ...extra }));
      expect([error.status, error.code, error.param], param).toEqual([400, 'unsupported_parameter', param]);
    }
    const tools = [{ type: 'function' as const, function: { name: 'f' } }];
    expect(() => build({ messages, tools, parallel_tool_calls: true, stream_options: { include_usage: true }, fallbacks: ['x'], user: 'u', metadata: {}, prompt_cache_key: 'k' })).not.toThrow();
  });
});

describe('gemini adapter: responses', () => {
  it('translates the recorded text response, counting thoughts as completion tokens', () => {
    const completion = geminiAdapter.parseResponse(fixtureJson(DIR + 'generateContent.text.response.json'), target);
    expect(completion).toMatchObject({ object: 'chat.completion', model: 'flash', id: expect.stringMatching(/^chatcmpl-/) });
    expect(completion.choices[0]).toMatchObject({ finish_reason: 'stop', message: { role: 'assistant', content: 'Hello! How can I help you today?' } });
    expect(completion.usage).toEqual({
      prompt_tokens: 9,
      completion_tokens: 43,
      total_tokens: 52,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 34 },
    });
  });

  it('translates recorded function calls into tool_calls with generated ids', () => {
    const completion = geminiAdapter.parseResponse(fixtureJson(DIR + 'generateContent.function-call.response.json'), target);
    const choice = completion.choices[0];
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    expect(choice.message.tool_calls).toEqual([{ id: expect.stringMatching(/^call_\w+$/), type: 'function', function: { name: 'get_user_country', arguments: '{}' } }]);
    const next = geminiAdapter.parseResponse(fixtureJson(DIR + 'generateContent.function-response.response.json'), target);
    expect(next.choices[0].message.tool_calls?.[0].function).toEqual({ name: 'final_result', arguments: '{"city":"Mexico City","country":"Mexico"}' });
    expect(next.usage).toMatchObject({ prompt_tokens: 47, completion_tokens: 8, total_tokens: 55 });
  });

  it('keeps the gemini 3 thoughtSignature in the tool call id', () => {
    const recorded = fixtureJson(DIR + 'generateContent.function-call.gemini3.response.json');
    const call = geminiAdapter.parseResponse(recorded, target).choices[0].message.tool_calls![0];
    expect(call.id.endsWith(`__thought__${recorded.candidates[0].content.parts[0].thoughtSignature}`)).toBe(true);
    expect(call.function).toEqual({ name: 'weather', arguments: '{"location":"San Francisco"}' });
  });

  it('maps safety stops and blocked prompts to content_filter', () => {
    const safety = geminiAdapter.parseResponse({ candidates: [{ content: { parts: [] }, finishReason: 'SAFETY' }] }, target);
    expect(safety.choices[0].finish_reason).toBe('content_filter');
    const blocked = geminiAdapter.parseResponse({ promptFeedback: { blockReason: 'PROHIBITED_CONTENT' } }, target);
    expect(blocked.choices[0].finish_reason).toBe('content_filter');
    expect(geminiAdapter.parseResponse({ candidates: [{ content: { parts: [{ text: 'a' }] }, finishReason: 'MAX_TOKENS' }] }, target).choices[0].finish_reason).toBe('length');
  });
});

describe('gemini adapter: streams', () => {
  it('translates the recorded CRLF text stream; a finishReason ends it', () => {
    const out = replayStream(geminiAdapter, target, fixtureText(DIR + 'streamGenerateContent.sse.text.sse.txt'));
    expect(out.text).toBe('The capital of France is Paris.\n');
    expect(out.finishReason).toBe('stop');
    expect(out.done).toBe(true);
    expect(out.usage).toMatchObject({ prompt_tokens: 13, completion_tokens: 8, total_tokens: 21 });
    expect(out.chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: 'The' });
    expect(new Set(out.chunks.map((c) => c.id)).size).toBe(1);
    expect(out.chunks.every((c) => c.model === 'flash')).toBe(true);
  });

  it('emits no usage chunk unless asked', () => {
    const out = replayStream(geminiAdapter, target, fixtureText(DIR + 'streamGenerateContent.sse.text.sse.txt'), false);
    expect(out.usage).toBeUndefined();
    expect(out.chunks.every((c) => c.choices.length === 1)).toBe(true);
  });

  it('translates the recorded function-call stream: one whole call, finish tool_calls', () => {
    const out = replayStream(geminiAdapter, target, fixtureText(DIR + 'streamGenerateContent.sse.function-call.sse.txt'));
    expect(out.toolCalls).toHaveLength(1);
    expect(out.toolCalls[0]).toMatchObject({ name: 'get_country', arguments: '{}', id: expect.stringMatching(/^call_\w+__thought__EpwICpkI/) });
    expect(out.finishReason).toBe('tool_calls');
    expect(out.usage).toEqual({
      prompt_tokens: 29,
      completion_tokens: 212,
      total_tokens: 241,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 202 },
    });
  });

  it('translates the recorded function-response and vertex streams', () => {
    const after = replayStream(geminiAdapter, target, fixtureText(DIR + 'streamGenerateContent.sse.function-response.sse.txt'));
    expect([after.text, after.finishReason, after.usage?.prompt_tokens]).toEqual(['The capital of Mexico is Mexico City.', 'stop', 257]);
    const vertex = replayStream(geminiAdapter, target, fixtureText(DIR + 'vertex.streamGenerateContent.sse.txt'));
    expect([vertex.text, vertex.finishReason, vertex.usage?.completion_tokens, vertex.done]).toEqual(['OK', 'stop', 101, true]);
  });

  it('turns thought parts of the recorded JSON-array stream into reasoning_content', () => {
    const translator = geminiAdapter.createStreamTranslator(target, { includeUsage: true });
    const chunks = fixtureJson(DIR + 'streamGenerateContent.json-array.function-call.response.json').flatMap((item: unknown) =>
      translator.push({ data: JSON.stringify(item) }),
    );
    expect(chunks[0].choices[0].delta.reasoning_content).toMatch(/^\*\*Generating Pelican Names\*\*/);
    expect(chunks[1].choices[0].delta.tool_calls[0]).toMatchObject({ index: 0, type: 'function', function: { name: 'pelican_name_generator', arguments: '{}' } });
    expect(chunks[2].choices[0].finish_reason).toBe('tool_calls');
    expect(chunks[3].usage).toMatchObject({ completion_tokens: 54, completion_tokens_details: { reasoning_tokens: 42 } });
    expect(translator.done).toBe(true);
  });

  it('throws an UpstreamStreamError for an error object in the stream', () => {
    const translator = geminiAdapter.createStreamTranslator(target, { includeUsage: false });
    expect(() => translator.push({ data: fixtureText(DIR + 'error.429.resource-exhausted.json') })).toThrow(UpstreamStreamError);
    expect(() => translator.push({ data: 'not json' })).toThrow(UpstreamStreamError);
  });
});

describe('gemini adapter: errors', () => {
  it('maps the recorded error bodies', () => {
    expect(geminiAdapter.parseError(404, fixtureText(DIR + 'error.404.not-found.json'))).toMatchObject({
      status: 404,
      type: 'not_found_error',
      code: 'model_not_found',
      param: null,
      message: expect.stringMatching(/^models\/gemini-3\.6-flahs is not found/),
    });
    expect(geminiAdapter.parseError(429, fixtureText(DIR + 'error.429.resource-exhausted.json'))).toEqual({
      status: 429,
      type: 'rate_limit_error',
      code: 'rate_limit_exceeded',
      param: null,
      message: 'You exceeded your current quota, please check your plan.',
      retryAfterMs: 34400,
    });
    expect(geminiAdapter.parseError(400, fixtureText(DIR + 'error.400.api-key-invalid.observed.json'))).toEqual({
      status: 401,
      type: 'authentication_error',
      code: 'invalid_api_key',
      param: null,
      message: 'API key not valid. Please pass a valid API key.',
    });
  });

  it('flags an oversized prompt and tolerates a non-JSON body', () => {
    const body = JSON.stringify({ error: { code: 400, status: 'INVALID_ARGUMENT', message: 'The input token count (2000000) exceeds the maximum number of tokens allowed (1048576).' } });
    expect(geminiAdapter.parseError(400, body)).toMatchObject({ type: 'invalid_request_error', code: 'context_length_exceeded' });
    expect(geminiAdapter.parseError(503, '')).toEqual({ status: 503, type: 'upstream_error', code: null, param: null, message: 'Upstream answered HTTP 503.' });
  });
});
