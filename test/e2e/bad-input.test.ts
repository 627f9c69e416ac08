import { describe, expect, it } from 'vitest';
import { DEMO_KEY, useGateway } from '../_setup.ts';

const env = useGateway('chat.yaml');

const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${env.gw.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json', ...headers },
    body,
  });

async function expectError(response: Response, status: number, code: string | null, param: string | null = null) {
  expect(response.status).toBe(status);
  // Even refused before the pipeline, an answer has its request id (the SDKs' `request_id`).
  expect(response.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
  const body = await response.json();
  expect(Object.keys(body)).toEqual(['error']);
  expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
  expect(body.error.code).toBe(code);
  expect(body.error.param).toBe(param);
  expect(body.error.message).toEqual(expect.any(String));
  return body.error;
}

const chat = (extra: Record<string, unknown>) => JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }], ...extra });

describe('bad input gets a clear 4xx in the OpenAI error shape', () => {
  it('malformed JSON is 400 invalid_json', async () => {
    await expectError(await post('/api/v1/chat/completions', '{"model": '), 400, 'invalid_json');
  });

  it('a wrong key with a bad body is 401, as OpenAI answers it, on every inference route', async () => {
    const wrongKey = { authorization: 'Bearer sk-bf-not-a-key-000000000000000000000000' };
    for (const path of ['/api/v1/chat/completions', '/api/v1/embeddings', '/api/v1/responses']) {
      await expectError(await post(path, '{"model": ', wrongKey), 401, 'invalid_api_key');
      await expectError(await post(path, JSON.stringify({ model: 7 }), wrongKey), 401, 'invalid_api_key');
    }
    // The right key with the same bodies still learns what is wrong with them.
    await expectError(await post('/api/v1/responses', JSON.stringify({ model: 7 })), 400, 'invalid_body', 'input');
  });

  it('a non-JSON content type is 415', async () => {
    await expectError(await post('/api/v1/chat/completions', chat({}), { 'content-type': 'text/plain' }), 415, 'unsupported_media_type');
  });

  it('an unknown route is 404 route_not_found', async () => {
    await expectError(await fetch(`${env.gw.url}/api/v1/nope`), 404, 'route_not_found');
  });

  it('a known path with the wrong method is 405 with Allow', async () => {
    const response = await fetch(`${env.gw.url}/api/v1/chat/completions`, { headers: { authorization: `Bearer ${DEMO_KEY}` } });
    expect(response.headers.get('allow')).toBe('POST');
    await expectError(response, 405, 'method_not_allowed');
  });

  it('a body over server.body_limit is 413, declared or streamed', async () => {
    const big = chat({ messages: [{ role: 'user', content: 'x'.repeat(70_000) }] });
    await expectError(await post('/api/v1/chat/completions', big), 413, 'body_too_large');
    // Without a Content-Length (chunked), the limit is enforced while reading.
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big));
        controller.close();
      },
    });
    const chunked = await fetch(`${env.gw.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    await expectError(chunked, 413, 'body_too_large');
  });

  it.each([
    ['messages missing', { messages: undefined }, 'messages'],
    ['messages empty', { messages: [] }, 'messages'],
    ['bad role', { messages: [{ role: 'robot', content: 'x' }] }, 'messages[0].role'],
    ['user content null', { messages: [{ role: 'user', content: null }] }, 'messages[0].content'],
    ['tool message without id', { messages: [{ role: 'tool', content: 'x' }] }, 'messages[0].tool_call_id'],
    ['temperature above 2', { temperature: 2.5 }, 'temperature'],
    ['temperature below -2', { temperature: -2.1 }, 'temperature'],
    ['temperature not a number', { temperature: 'hot' }, 'temperature'],
    ['frequency_penalty above 2', { frequency_penalty: 3 }, 'frequency_penalty'],
    ['presence_penalty below -2', { presence_penalty: -3 }, 'presence_penalty'],
    ['top_p above 1', { top_p: 1.5 }, 'top_p'],
    ['max_tokens zero', { max_tokens: 0 }, 'max_tokens'],
    ['max_tokens fractional', { max_tokens: 1.5 }, 'max_tokens'],
    ['max_completion_tokens negative', { max_completion_tokens: -1 }, 'max_completion_tokens'],
    ['stream not boolean', { stream: 'yes' }, 'stream'],
    ['logprobs not boolean', { logprobs: 1 }, 'logprobs'],
    ['logit_bias out of range', { logit_bias: { '50256': 101 } }, 'logit_bias.50256'],
    ['stop too many', { stop: ['a', 'b', 'c', 'd', 'e'] }, 'stop'],
    ['modalities unknown', { modalities: ['smell'] }, 'modalities[0]'],
    ['fallbacks not strings', { fallbacks: [1] }, 'fallbacks[0]'],
    ['metadata value not string', { metadata: { a: 1 } }, 'metadata.a'],
    ['parallel_tool_calls not boolean', { parallel_tool_calls: 'no' }, 'parallel_tool_calls'],
    ['prompt_cache_key not string', { prompt_cache_key: 5 }, 'prompt_cache_key'],
    ['user not string', { user: 5 }, 'user'],
    ['model not string', { model: 5 }, 'model'],
  ])('%s is 400 naming the param', async (_name, extra, param) => {
    const error = await expectError(await post('/api/v1/chat/completions', chat(extra)), 400, 'invalid_body', param);
    expect(error.type).toBe('invalid_request_error');
    expect(error.message).toContain(param.split(/[.[]/)[0]);
  });

  it.each([
    // A tool schema nested ~3000 schema levels deep (the model's context check stringifies the tools).
    ['chat tools', '/api/v1/chat/completions', `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f","parameters":${'{"p":{"a":'.repeat(3000)}{}${'}}'.repeat(3000)}}}]}`],
    ['responses tools', '/api/v1/responses', `{"model":"gpt-4o-mini","input":"x","tools":[{"type":"function","name":"f","parameters":${'{"p":{"a":'.repeat(3000)}{}${'}}'.repeat(3000)}}]}`],
    ['an extra chat field', '/api/v1/chat/completions', `{"model":"mock/gpt-4o","messages":[{"role":"user","content":"x"}],"extra":${'['.repeat(6000)}${']'.repeat(6000)}}`],
    ['embeddings input', '/api/v1/embeddings', `{"model":"gpt-4o-mini","input":${'['.repeat(100)}${']'.repeat(100)}}`],
  ])('a body nested past 64 levels (%s) is 400 invalid_body, without an upstream call', async (_name, path, body) => {
    const error = await expectError(await post(path, body), 400, 'invalid_body');
    expect(error.message).toBe('The request body is nested more than 64 levels deep.');
    expect(env.mock.requests).toHaveLength(0);
  });

  it('a body that is not an object is 400', async () => {
    await expectError(await post('/api/v1/chat/completions', '[1,2]'), 400, 'invalid_body');
  });

  it('a request with no model and no default_model is 400 naming model', async () => {
    await expectError(await post('/api/v1/chat/completions', JSON.stringify({ messages: [{ role: 'user', content: 'x' }] })), 400, 'invalid_body', 'model');
  });

  it('no bad request ever reached the upstream', () => {
    expect(env.mock.requests).toHaveLength(0);
  });

  it('accepts every documented parameter and forwards it upstream', async () => {
    const params = {
      temperature: -2, frequency_penalty: 2, presence_penalty: -2, max_tokens: 5, max_completion_tokens: 6,
      logit_bias: { '50256': -100 }, logprobs: true, metadata: { team: 'a' }, modalities: ['text'],
      parallel_tool_calls: false, prompt_cache_key: 'k1', stop: ['\n'], user: 'u1', top_p: 0.5,
    };
    const response = await post('/api/v1/chat/completions', chat(params));
    expect(response.status).toBe(200);
    const sent = env.mock.requests.at(-1)!.body;
    for (const [name, value] of Object.entries(params)) expect(sent[name]).toEqual(value);
    expect(sent).not.toHaveProperty('fallbacks');
  });
});
