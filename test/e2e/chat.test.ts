import OpenAI from 'openai';
import { beforeEach, describe, expect, it } from 'vitest';
import { client, DEMO_KEY, useGateway } from '../_setup.ts';

const env = useGateway('chat.yaml');
beforeEach(() => env.mock.reset());

describe('chat completions through a compat upstream', () => {
  it('answers the spec chat completion object via the openai SDK', async () => {
    const completion = await client(env.gw).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello there' }] });
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('gpt-4o-mini');
    expect(completion.choices[0].message).toMatchObject({ role: 'assistant', content: 'Echo: hello there' });
    expect(completion.choices[0].finish_reason).toBe('stop');
    expect(completion.usage).toEqual(expect.objectContaining({ prompt_tokens: 2, completion_tokens: 3, total_tokens: 5 }));
    expect(typeof completion.created).toBe('number');
    const sent = env.mock.requests[0];
    expect(sent.headers.authorization).toBe('Bearer upstream-secret-key');
    expect(sent.body.model).toBe('gpt-4o-mini');
    expect(sent.body.temperature).toBe(0.7); // default from settings
  });

  it('streams chunks ending with [DONE] and adds usage only when asked', async () => {
    const stream = await client(env.gw).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'one two three' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | null | undefined;
    let finish: string | null = null;
    for await (const chunk of stream) {
      expect(chunk.object).toBe('chat.completion.chunk');
      expect(chunk.model).toBe('gpt-4o-mini');
      text += chunk.choices[0]?.delta?.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('Echo: one two three');
    expect(finish).toBe('stop');
    expect(usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 });
  });

  it('leaves out the usage chunk when the client did not ask for it', async () => {
    const response = await fetch(`${env.gw.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true }),
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const body = await response.text();
    const events = body.split('\n\n').filter(Boolean);
    expect(events.at(-1)).toBe('data: [DONE]');
    for (const event of events.slice(0, -1)) {
      const chunk = JSON.parse(event.slice('data: '.length));
      expect(chunk.choices.length).toBe(1);
      expect(chunk).not.toHaveProperty('usage');
    }
  });

  it('delivers the first chunk before the upstream has finished (no buffering)', async () => {
    env.mock.setBehavior('slow-50', { chunkDelayMs: 150, reply: 'a b c d e f' });
    const started = Date.now();
    const stream = await client(env.gw).chat.completions.create({ model: 'mock/slow-50', messages: [{ role: 'user', content: 'x' }], stream: true });
    const arrivals: number[] = [];
    for await (const chunk of stream) if (chunk.choices[0]?.delta?.content) arrivals.push(Date.now() - started);
    expect(arrivals.length).toBe(6);
    // Six chunks 150 ms apart: the first arrives long before the last was sent.
    expect(arrivals[0]).toBeLessThan(arrivals[5] - 500);
  });

  it('resolves provider/model identifiers and echoes them', async () => {
    const completion = await client(env.gw).chat.completions.create({ model: 'mock/gpt-4o', messages: [{ role: 'user', content: 'x' }] });
    expect(completion.model).toBe('mock/gpt-4o');
    expect(env.mock.requests[0].body.model).toBe('gpt-4o');
  });

  it('answers 404 model_not_found for unknown and inactive models without calling upstream', async () => {
    for (const model of ['nope', 'mock/not-listed', 'retired', 'ghost/gpt-4o']) {
      const error = await client(env.gw).chat.completions.create({ model, messages: [{ role: 'user', content: 'x' }] }).catch((e) => e);
      expect(error).toBeInstanceOf(OpenAI.NotFoundError);
      expect(error.error).toMatchObject({ code: 'model_not_found', type: 'not_found_error', param: 'model' });
    }
    expect(env.mock.requests).toHaveLength(0);
  });

  it('answers 401 for a missing or unknown key, as the SDK error class', async () => {
    const error = await client(env.gw, 'sk-bf-wrong').chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }).catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(error.error).toMatchObject({ code: 'invalid_api_key', type: 'authentication_error' });
    const anonymous = await fetch(`${env.gw.url}/api/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ error: { message: expect.any(String), type: 'authentication_error', param: null, code: 'invalid_api_key' } });
  });

  it('never leaks the upstream key in an error', async () => {
    const error = await client(env.gw).chat.completions.create({ model: 'mock/fail-500', messages: [{ role: 'user', content: 'x' }] }).catch((e) => e);
    expect(error.status).toBe(503);
    expect(JSON.stringify(error.error)).not.toContain('upstream-secret-key');
    expect(error.error.code).toBe('upstream_unavailable');
  });
});

describe('GET /api/v1/models', () => {
  it('lists the routable models through the SDK, leaving out inactive ones', async () => {
    const ids = [];
    for await (const model of client(env.gw).models.list()) {
      expect(model.object).toBe('model');
      ids.push(model.id);
    }
    expect(ids).toContain('gpt-4o-mini');
    expect(ids).toContain('mock/gpt-4o');
    expect(ids).toContain('backup/gpt-4o-mini');
    expect(ids).not.toContain('retired');
  });

  it('needs a key', async () => {
    expect((await fetch(`${env.gw.url}/api/v1/models`)).status).toBe(401);
    expect((await fetch(`${env.gw.url}/api/v1/models/gpt-4o-mini`)).status).toBe(401);
  });
});

describe('GET /api/v1/models/{id}', () => {
  it('retrieves a routable model through the SDK, provider/model names included', async () => {
    expect(await client(env.gw).models.retrieve('gpt-4o-mini')).toEqual({ id: 'gpt-4o-mini', object: 'model', created: expect.any(Number), owned_by: 'mock' });
    expect(await client(env.gw).models.retrieve('mock/gpt-4o')).toMatchObject({ id: 'mock/gpt-4o', object: 'model', owned_by: 'mock' });
  });

  it('answers 404 model_not_found for a model the caller may not see, existing or not', async () => {
    const onlyMini = client(env.gw, 'sk-bf-test-models-0000000000000000000000000000');
    expect((await onlyMini.models.retrieve('gpt-4o-mini')).id).toBe('gpt-4o-mini');
    for (const [sdk, model] of [[client(env.gw), 'nope'], [client(env.gw), 'retired'], [client(env.gw), 'mock/not-listed'], [onlyMini, 'mock/gpt-4o']] as const) {
      const error = await sdk.models.retrieve(model).catch((e) => e);
      expect(error, model).toBeInstanceOf(OpenAI.NotFoundError);
      expect(error.error, model).toEqual({ message: expect.stringContaining(model), type: 'not_found_error', param: 'model', code: 'model_not_found' });
    }
  });
});
