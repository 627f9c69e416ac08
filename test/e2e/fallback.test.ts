import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { client, closedPort, DEMO_KEY, startMockUpstream, startTestGateway, type MockUpstream, type TestGateway } from '../_setup.ts';

let mock: MockUpstream;
let gw: TestGateway;

beforeAll(async () => {
  mock = await startMockUpstream();
  gw = await startTestGateway('fallback.yaml', { MOCK_URL: `${mock.url}/v1`, MOCK_BASE: mock.url, DEAD_URL: `http://127.0.0.1:${await closedPort()}/v1` });
});
afterAll(async () => {
  await gw?.close();
  await mock?.close();
});
beforeEach(() => mock.reset());

const ask = (model: string, fallbacks?: string[], extra: Record<string, unknown> = {}) =>
  client(gw).chat.completions.create({ model, messages: [{ role: 'user', content: 'hello' }], ...(fallbacks ? { fallbacks } : {}), ...extra } as OpenAI.ChatCompletionCreateParamsNonStreaming);

const models = () => mock.requests.map((r) => r.model);

async function rawStream(body: Record<string, unknown>) {
  const answer = await fetch(`${gw.url}/api/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ role: 'user', content: 'hello' }], stream: true, ...body }),
  });
  return { status: answer.status, events: (await answer.text()).split('\n\n').filter(Boolean) };
}

describe('fallback before the first byte', () => {
  it('falls over on 500 after one retry, and names the model that served', async () => {
    const completion = await ask('main/fail-500', ['main/primary']);
    expect(completion.model).toBe('main/primary');
    expect(completion.choices[0].message.content).toBe('Echo: hello');
    expect(models()).toEqual(['fail-500', 'fail-500', 'primary']);
  });

  it('falls over at once on a first-token timeout (no retry of the silent target), streamed and not, cancelling the slow call', async () => {
    mock.setBehavior('slow-first', { delayMs: 3000 });
    const started = Date.now();
    const completion = await ask('slowfirst', ['main/primary']);
    expect(completion.model).toBe('main/primary');
    expect(Date.now() - started).toBeLessThan(1500);
    expect(models()).toEqual(['slow-first', 'primary']);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(mock.requests.filter((r) => r.model === 'slow-first').every((r) => r.aborted)).toBe(true);

    mock.reset();
    mock.setBehavior('slow-first', { delayMs: 3000 });
    const stream = await client(gw).chat.completions.create({ model: 'slowfirst', fallbacks: ['main/primary'], messages: [{ role: 'user', content: 'hello' }], stream: true } as OpenAI.ChatCompletionCreateParamsStreaming);
    let text = '';
    for await (const chunk of stream) {
      expect(chunk.model).toBe('main/primary');
      text += chunk.choices[0]?.delta?.content ?? '';
    }
    expect(text).toBe('Echo: hello');
  });

  it('falls over on connection refused', async () => {
    const completion = await ask('dead/x', ['main/primary']);
    expect(completion.model).toBe('main/primary');
    expect(models()).toEqual(['primary']);
  });

  it('does not retry a 400 and relays its message', async () => {
    mock.setBehavior('bad', { status: 400, errorBody: { error: { message: 'max_tokens is too large', type: 'invalid_request_error', param: 'max_tokens', code: 'invalid_value' } } });
    const error = await ask('main/bad', ['main/primary']).catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.error).toEqual({ message: 'max_tokens is too large', type: 'invalid_request_error', param: 'max_tokens', code: 'invalid_value' });
    expect(models()).toEqual(['bad']);
  });

  it('falls over on context_length_exceeded without retrying the same model', async () => {
    mock.setBehavior('ctx', { status: 400, errorBody: { error: { message: 'too long', type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } } });
    const completion = await ask('main/ctx', ['main/primary']);
    expect(completion.model).toBe('main/primary');
    expect(models()).toEqual(['ctx', 'primary']);
  });

  it('relays 429 with Retry-After when every target is rate limited (a long wait falls over at once)', async () => {
    mock.setBehavior('busy', { status: 429, retryAfter: '30' });
    mock.setBehavior('busy2', { status: 429, retryAfter: '30' });
    const started = Date.now();
    const error = await ask('main/busy', ['main/busy2']).catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error.headers.get('retry-after')).toBe('30');
    expect(Date.now() - started).toBeLessThan(1000);
    expect(models()).toEqual(['busy', 'busy2']);
  });

  it('waits a short Retry-After before retrying the same model (header, and generateContent RetryInfo)', async () => {
    mock.setBehavior('flaky', { status: 429, retryAfter: '1', times: 1 });
    let started = Date.now();
    const completion = await ask('main/flaky');
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(completion.model).toBe('main/flaky');
    expect(models()).toEqual(['flaky', 'flaky']);

    mock.reset();
    mock.setBehavior('gbusy', { status: 429, retryAfter: '1', times: 1 });
    started = Date.now();
    const gen = await ask('gen/gbusy');
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(gen.choices[0].message.content).toBe('Echo: hello');
    expect(models()).toEqual(['gbusy', 'gbusy']);
  });
});

describe('after the first byte', () => {
  it('does not fall over: a cut stream ends with an error event the SDK raises, without [DONE]', async () => {
    mock.setBehavior('cut', { cutAfterChunks: 2, chunkDelayMs: 10, reply: 'one two three four' });
    const stream = await client(gw).chat.completions.create({ model: 'main/cut', fallbacks: ['main/primary'], messages: [{ role: 'user', content: 'x' }], stream: true } as OpenAI.ChatCompletionCreateParamsStreaming);
    let text = '';
    const error = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    })().catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error.error).toMatchObject({ code: 'stream_interrupted', type: 'upstream_error' });
    expect(text).toBe('one two ');
    expect(models()).toEqual(['cut']);

    mock.setBehavior('cut', { cutAfterChunks: 2, chunkDelayMs: 10, reply: 'one two three four' });
    const { events } = await rawStream({ model: 'main/cut', fallbacks: ['main/primary'] });
    expect(events).not.toContain('data: [DONE]');
    expect(JSON.parse(events.at(-1)!.slice(6))).toMatchObject({ error: { code: 'stream_interrupted' } });
    for (const event of events.slice(0, -1)) expect(JSON.parse(event.slice(6)).choices[0].finish_reason).toBeNull();
  });

  it('ends a stream that stalls after the commit with an upstream_timeout error event (idle timeout)', async () => {
    mock.setBehavior('stall', { stallAfterChunks: 2, reply: 'one two three' });
    const started = Date.now();
    const { events } = await rawStream({ model: 'staller' });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(events).not.toContain('data: [DONE]');
    expect(JSON.parse(events.at(-1)!.slice(6))).toMatchObject({ error: { code: 'upstream_timeout', type: 'upstream_error' } });
  });

  it('closes at once, with usage, a stream that finished but never sends its end marker', async () => {
    mock.setBehavior('hold', { holdAfterFinish: true, reply: 'done here' });
    const started = Date.now();
    const { events } = await rawStream({ model: 'main/hold', stream_options: { include_usage: true } });
    expect(Date.now() - started).toBeLessThan(800);
    expect(events.at(-1)).toBe('data: [DONE]');
    expect(JSON.parse(events.at(-2)!.slice(6)).usage).toMatchObject({ completion_tokens: 2 });
    // The upstream's tail drains in the background (so a healthy connection is reused); one that
    // holds on past the grace period is let go.
    const deadline = Date.now() + 3000;
    while (!mock.requests[0].aborted && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(mock.requests[0].aborted).toBe(true);

    mock.setBehavior('nodone', { omitDone: true, reply: 'short one' });
    const closed = await rawStream({ model: 'main/nodone', stream_options: { include_usage: true } });
    expect(closed.events.at(-1)).toBe('data: [DONE]');
    expect(JSON.parse(closed.events.at(-2)!.slice(6)).usage).toMatchObject({ completion_tokens: 2 });
  });
});
