/**
 * The generateContent ingress with the official Google GenAI SDK (`httpOptions.baseUrl:
 * "{gateway}/api"`) against an upstream of each wire format: a compat (chat) one, a Messages API
 * one and a generateContent one (which gets the client's body as it wrote it).
 */
import { ApiError, FunctionCallingConfigMode, GoogleGenAI, type Content, type FunctionCall, type GenerateContentResponse } from '@google/genai';
import { beforeEach, describe, expect, it } from 'vitest';
import { api, DEMO_KEY, MASTER_KEY, useGateway, waitForLogRecord } from '../_setup.ts';

const env = useGateway('generate-content.yaml');
beforeEach(() => env.mock.reset());

const LIMITED_KEY = 'sk-bf-gen-limited-000000000000000000000000000';
/** Used by the statistics test only, whose counts it narrows to. */
const STATS_KEY = 'sk-bf-gen-stats-0000000000000000000000000000';
const ai = (apiKey = DEMO_KEY) => new GoogleGenAI({ apiKey, httpOptions: { baseUrl: `${env.gw.url}/api` } });

const FORMATS = [
  { format: 'compat', model: 'compat/m-compat' },
  { format: 'vendor_b', model: 'msgs/m-msgs' },
  { format: 'vendor_c', model: 'gen/m-gen' },
] as const;

const weather = {
  functionDeclarations: [
    { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'OBJECT', properties: { city: { type: 'STRING' } }, required: ['city'] } },
  ],
} as never;

/** A stream's pieces: the text, the last finishReason, the last usage, the function calls, the modelVersions. */
async function collect(stream: AsyncIterable<GenerateContentResponse>) {
  let text = '';
  let finish: string | undefined;
  let usage: GenerateContentResponse['usageMetadata'];
  const calls: FunctionCall[] = [];
  const versions = new Set<string | undefined>();
  for await (const chunk of stream) {
    versions.add(chunk.modelVersion);
    for (const part of chunk.candidates?.[0]?.content?.parts ?? []) {
      if (part.text) text += part.text;
      if (part.functionCall) calls.push(part.functionCall);
    }
    finish = chunk.candidates?.[0]?.finishReason ?? finish;
    usage = chunk.usageMetadata ?? usage;
  }
  return { text, finish, usage, calls, versions };
}

/** The error an SDK call failed with, its body parsed. */
async function failure(call: Promise<unknown> | (() => Promise<unknown>)) {
  try {
    await (typeof call === 'function' ? call() : call);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const json = error.message.slice(error.message.indexOf('{'));
    return { status: error.status, body: JSON.parse(json) };
  }
  throw new Error('the call succeeded');
}

describe.each(FORMATS)('to a $format upstream', ({ format, model }) => {
  it('answers text with a system instruction, usage, the finish reason and the client model', async () => {
    const response = await ai().models.generateContent({ model, contents: 'hello there', config: { systemInstruction: 'Be brief.' } });
    expect(response.text).toBe('Echo: hello there');
    expect(response.candidates?.[0]?.finishReason).toBe('STOP');
    expect(response.usageMetadata).toMatchObject({ promptTokenCount: 2, candidatesTokenCount: 3, totalTokenCount: 5 });
    expect(response.modelVersion).toBe(model);
    expect(response.responseId).toEqual(expect.any(String));
    const sent = env.mock.requests[0]!;
    expect(sent.format).toBe(format);
    if (format === 'vendor_c') {
      // The body as the client wrote it, the model renamed in the URL, the gateway key not forwarded.
      expect(sent.path).toBe('/v1beta/models/m-gen:generateContent');
      expect(sent.body.systemInstruction).toEqual({ parts: [{ text: 'Be brief.' }], role: 'user' });
      expect(sent.headers['x-goog-api-key']).toBe('gen-secret');
    } else if (format === 'compat') {
      expect(sent.body.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
      expect(sent.headers.authorization).toBe('Bearer compat-secret');
    } else expect(JSON.stringify(sent.body.system)).toContain('Be brief.');
  });

  it('streams text with usage on the last event (alt=sse)', async () => {
    const result = await collect(await ai().models.generateContentStream({ model, contents: 'one two three' }));
    expect(result.text).toBe('Echo: one two three');
    expect(result.finish).toBe('STOP');
    expect(result.usage).toMatchObject({ promptTokenCount: 3, candidatesTokenCount: 4, totalTokenCount: 7 });
    expect([...result.versions]).toEqual([model]);
    if (format === 'vendor_c') expect(env.mock.requests[0]!.path).toBe('/v1beta/models/m-gen:streamGenerateContent?alt=sse');
  });

  it('sends the generation settings, never replaced by the account defaults', async () => {
    const config = { temperature: 0.2, topP: 0.9, topK: 7, responseMimeType: 'application/json', responseSchema: { type: 'OBJECT', properties: { a: { type: 'STRING' } } } } as const;
    await ai().models.generateContent({ model, contents: 'hi', config });
    const body = env.mock.requests[0]!.body;
    if (format === 'vendor_c') expect(body.generationConfig).toMatchObject(config);
    else expect(body).toMatchObject({ temperature: 0.2, top_p: 0.9 });
    if (format === 'compat') expect(body.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'response', schema: { type: 'object', properties: { a: { type: 'string' } } } } });
  });

  it('carries a multi-turn conversation', async () => {
    const contents: Content[] = [
      { role: 'user', parts: [{ text: 'first question' }] },
      { role: 'model', parts: [{ text: 'Echo: first question' }] },
      { role: 'user', parts: [{ text: 'second question' }] },
    ];
    const response = await ai().models.generateContent({ model, contents });
    expect(response.text).toBe('Echo: second question');
    const body = env.mock.requests[0]!.body;
    expect((body.messages ?? body.contents).length).toBe(3);
  });

  it.each([false, true])('round-trips a function call and its response (stream: %s)', async (stream) => {
    const config = { tools: [weather], toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.AUTO } } };
    const user: Content = { role: 'user', parts: [{ text: 'Paris' }] };
    const first = stream
      ? await collect(await ai().models.generateContentStream({ model, contents: [user], config }))
      : await ai().models.generateContent({ model, contents: [user], config }).then((r) => ({ calls: r.functionCalls ?? [], finish: r.candidates?.[0]?.finishReason }));
    expect(first.finish).toBe('STOP');
    expect(first.calls).toHaveLength(1);
    const call = first.calls[0]!;
    expect(call).toMatchObject({ name: 'get_weather', args: { city: 'Paris' } });
    const contents: Content[] = [
      user,
      { role: 'model', parts: [{ functionCall: call }] },
      { role: 'user', parts: [{ functionResponse: { id: call.id, name: 'get_weather', response: { output: 'sunny' } } }] },
    ];
    const second = await ai().models.generateContent({ model, contents, config });
    expect(second.text).toContain('sunny');
  });

  it.each([false, true])('passes an inline image (stream: %s)', async (stream) => {
    const contents: Content[] = [{ role: 'user', parts: [{ text: 'what is this' }, { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }] }];
    const text = stream ? (await collect(await ai().models.generateContentStream({ model, contents }))).text : (await ai().models.generateContent({ model, contents })).text;
    expect(text).toBe('Echo: what is this (+1 image)');
  });

  it.each([false, true])('stops at a stop sequence and at maxOutputTokens (stream: %s)', async (stream) => {
    const run = async (config: object) => {
      if (stream) return collect(await ai().models.generateContentStream({ model, contents: 'one two three four', config }));
      const response = await ai().models.generateContent({ model, contents: 'one two three four', config });
      return { text: response.text, finish: response.candidates?.[0]?.finishReason, usage: response.usageMetadata };
    };
    const stopped = await run({ stopSequences: ['three'] });
    expect(stopped).toMatchObject({ text: 'Echo: one two ', finish: 'STOP' });
    const limited = await run({ maxOutputTokens: 2 });
    expect(limited).toMatchObject({ text: 'Echo: one ', finish: 'MAX_TOKENS' });
    expect(limited.usage).toMatchObject({ candidatesTokenCount: 2 });
  });

  it.each([
    [429, 'RESOURCE_EXHAUSTED'],
    [503, 'UNAVAILABLE'],
  ])('answers an upstream %i in Google shape', async (status, rpc) => {
    const upstreamModel = model.split('/')[1]!;
    env.mock.setBehavior(upstreamModel, { status, retryAfter: '7' });
    const error = await failure(ai().models.generateContent({ model, contents: 'hi' }));
    expect(error.status).toBe(status);
    expect(error.body.error).toMatchObject({ code: status, status: rpc, message: expect.any(String) });
  });

  it('ends a stream cut after its start with an error event, never a clean end', async () => {
    env.mock.setBehavior(model.split('/')[1]!, { cutAfterChunks: 2 });
    const seen: string[] = [];
    const error = await failure(async () => {
      for await (const chunk of await ai().models.generateContentStream({ model, contents: 'one two three four five' })) seen.push(chunk.text ?? '');
    });
    expect(seen.join('')).toMatch(/^Echo: /);
    expect(error.status).toBeGreaterThanOrEqual(500);
    expect(error.body.error).toMatchObject({ code: error.status, status: expect.any(String), message: expect.any(String) });
  });
});

describe('generateContent errors in Google shape', () => {
  it.each([
    ['an unknown field', { contents: [{ parts: [{ text: 'hi' }] }], cachedContent: 'x' }, 400, 'INVALID_ARGUMENT', 'cachedContent'],
    ['a tool kind no chat upstream has', { contents: [{ parts: [{ text: 'hi' }] }], tools: [{ googleSearch: {} }] }, 400, 'INVALID_ARGUMENT', 'tools[0].googleSearch'],
    ['two candidates', { contents: [{ parts: [{ text: 'hi' }] }], generationConfig: { candidateCount: 2 } }, 400, 'INVALID_ARGUMENT', 'candidateCount'],
  ])('refuses %s with 400 naming the field', async (_what, body, status, rpc, field) => {
    const res = await fetch(`${env.gw.url}/api/v1beta/models/compat/m-compat:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': DEMO_KEY, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(status);
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    const json = await res.json();
    expect(json.error).toMatchObject({ code: status, status: rpc });
    expect(json.error.message).toContain(field);
    expect(env.mock.requests).toHaveLength(0);
  });

  it('answers 401 UNAUTHENTICATED to a wrong key and to none', async () => {
    expect(await failure(ai('sk-bf-wrong').models.generateContent({ model: 'compat/m-compat', contents: 'hi' }))).toMatchObject({
      status: 401,
      body: { error: { code: 401, status: 'UNAUTHENTICATED' } },
    });
    const res = await fetch(`${env.gw.url}/api/v1beta/models/compat/m-compat:generateContent`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(401);
    expect((await res.json()).error).toMatchObject({ code: 401, status: 'UNAUTHENTICATED' });
  });

  it('answers 403 PERMISSION_DENIED for a model the key may not use', async () => {
    const error = await failure(ai(LIMITED_KEY).models.generateContent({ model: 'gen/m-gen', contents: 'hi' }));
    expect(error).toMatchObject({ status: 403, body: { error: { code: 403, status: 'PERMISSION_DENIED' } } });
    expect(error.body.error.details).toContainEqual(expect.objectContaining({ reason: 'model_not_permitted' }));
  });

  it('answers 404 NOT_FOUND for an unknown model and an unknown method', async () => {
    expect(await failure(ai().models.generateContent({ model: 'nobody/none', contents: 'hi' }))).toMatchObject({ status: 404, body: { error: { code: 404, status: 'NOT_FOUND' } } });
    const res = await fetch(`${env.gw.url}/api/v1beta/models/compat/m-compat:embedContent`, { method: 'POST', headers: { 'x-goog-api-key': DEMO_KEY }, body: '{}' });
    expect(res.status).toBe(404);
    expect((await res.json()).error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
  });

  it('answers 413 to a body over the limit', async () => {
    const error = await failure(ai().models.generateContent({ model: 'compat/m-compat', contents: 'x'.repeat(70_000) }));
    expect(error).toMatchObject({ status: 413, body: { error: { code: 413, status: 'INVALID_ARGUMENT' } } });
  });

  it('answers 503 UNAVAILABLE when the upstream does not answer in time', async () => {
    env.mock.setBehavior('m-slow', { delayMs: 3000 });
    const error = await failure(ai().models.generateContent({ model: 'slow/m-slow', contents: 'hi' }));
    expect(error).toMatchObject({ status: 503, body: { error: { code: 503, status: 'UNAVAILABLE' } } });
  });

  it('ends a stream that stalls after its start with a 504 DEADLINE_EXCEEDED event', async () => {
    env.mock.setBehavior('m-slow', { stallAfterChunks: 1 });
    const error = await failure(async () => {
      for await (const _chunk of await ai().models.generateContentStream({ model: 'slow/m-slow', contents: 'one two three' }));
    });
    expect(error).toMatchObject({ status: 504, body: { error: { code: 504, status: 'DEADLINE_EXCEEDED' } } });
  });
});

describe('generateContent credentials, raw streams, countTokens and the call log', () => {
  const body = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hello key' }] }] });

  it('takes the key from the key query parameter, never forwarded nor logged', async () => {
    const res = await fetch(`${env.gw.url}/api/v1beta/models/gen/m-gen:generateContent?key=${DEMO_KEY}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(res.status).toBe(200);
    expect((await res.json()).candidates[0].content.parts[0].text).toBe('Echo: hello key');
    const sent = env.mock.requests[0]!;
    expect(sent.path).toBe('/v1beta/models/m-gen:generateContent');
    expect(JSON.stringify(sent.headers)).not.toContain(DEMO_KEY);
    const record = await waitForLogRecord(env.gw, res.headers.get('x-request-id')!);
    expect(JSON.stringify(record)).not.toContain(DEMO_KEY);
  });

  it('takes the key from x-goog-api-key', async () => {
    const res = await fetch(`${env.gw.url}/api/v1beta/models/compat/m-compat:generateContent`, { method: 'POST', headers: { 'x-goog-api-key': DEMO_KEY, 'content-type': 'application/json' }, body });
    expect(res.status).toBe(200);
    expect(env.mock.requests[0]!.headers.authorization).toBe('Bearer compat-secret');
  });

  it.each(['compat/m-compat', 'gen/m-gen'])('streams a JSON array without alt=sse (%s)', async (model) => {
    const res = await fetch(`${env.gw.url}/api/v1beta/models/${model}:streamGenerateContent`, { method: 'POST', headers: { 'x-goog-api-key': DEMO_KEY, 'content-type': 'application/json' }, body });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const events = JSON.parse(await res.text()) as GenerateContentResponse[];
    expect(events.map((e) => e.candidates?.[0]?.content?.parts?.map((p) => p.text).join('')).join('')).toBe('Echo: hello key');
    expect(events.at(-1)).toMatchObject({ candidates: [{ finishReason: 'STOP' }], usageMetadata: { totalTokenCount: 5 }, modelVersion: model });
  });

  it('ends a cut JSON-array stream with an error element', async () => {
    env.mock.setBehavior('m-compat', { cutAfterChunks: 1 });
    const res = await fetch(`${env.gw.url}/api/v1beta/models/compat/m-compat:streamGenerateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': DEMO_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ parts: [{ text: 'a b c d e' }] }] }),
    });
    const events = JSON.parse(await res.text());
    expect(events.at(-1).error).toMatchObject({ code: expect.any(Number), status: expect.any(String) });
  });

  it('counts tokens: by a generateContent upstream, else by the estimate', async () => {
    const counted = await ai().models.countTokens({ model: 'gen/m-gen', contents: 'one two three' });
    expect(counted.totalTokens).toBe(3);
    expect(env.mock.requests[0]!.path).toBe('/v1beta/models/m-gen:countTokens');
    const estimated = await ai().models.countTokens({ model: 'compat/m-compat', contents: 'one two three' });
    expect(estimated.totalTokens).toBeGreaterThan(3);
    expect(env.mock.requests).toHaveLength(1);
    expect(await failure(ai(LIMITED_KEY).models.countTokens({ model: 'gen/m-gen', contents: 'x' }))).toMatchObject({ status: 403 });
  });

  it('logs the call as generate_content in Google shape, priced, and statistics count it', async () => {
    const day = new Date().toISOString().slice(0, 10);
    const usage = () => api(env.gw, 'GET', `/v1/statistics/usage?start_date=${day}&end_date=${day}&api_key_id=stats-key`, undefined, MASTER_KEY);
    expect((await usage()).body.summary).toMatchObject({ request_count: 0 });
    for (const path of ['gemini-priced:generateContent', 'gemini-priced:streamGenerateContent?alt=sse']) {
      const res = await fetch(`${env.gw.url}/api/v1beta/models/${path}`, { method: 'POST', headers: { 'x-goog-api-key': STATS_KEY, 'content-type': 'application/json' }, body });
      await res.text();
      const record = await waitForLogRecord(env.gw, res.headers.get('x-request-id')!);
      expect(record).toMatchObject({ endpoint: 'generate_content', model: 'gemini-priced', status: 'success', request_tokens: 2, response_tokens: 3 });
      expect(record.request).toEqual(JSON.parse(body));
      expect(record.response).toMatchObject({ candidates: [{ content: { parts: [{ text: 'Echo: hello key' }] }, finishReason: 'STOP' }], modelVersion: 'gemini-priced' });
      expect(record.cost.total).toBeGreaterThan(0);
    }
    expect((await usage()).body.summary).toMatchObject({ request_count: 2, total_tokens: 10 });
  });
});
