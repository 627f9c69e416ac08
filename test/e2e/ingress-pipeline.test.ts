/**
 * What the pipeline gives the Messages and generateContent ingresses as it gives chat, with the
 * official `@anthropic-ai/sdk` and `@google/genai`: a model config's `fallbacks` serving when the
 * primary fails, streamed and not (their clients cannot send the gateway's body `fallbacks`), from
 * a primary of each wire format; a key's rate limit, its group's token quota and its model
 * permissions, refused in the client's own error shape; the response cache answering a repeated
 * Messages request in Anthropic's shape; the call log and costs following the model that served.
 */
import Anthropic from '@anthropic-ai/sdk';
import { ApiError, GoogleGenAI } from '@google/genai';
import { beforeEach, describe, expect, it } from 'vitest';
import { api, DEMO_KEY, MASTER_KEY, useGateway, waitForLogRecord } from '../_setup.ts';

const env = useGateway('ingress-pipeline.yaml');
beforeEach(() => env.mock.reset());

const LIMITED_KEY = 'sk-bf-ingress-limited-00000000000000000000000';
const NARROW_KEY = 'sk-bf-ingress-narrow-000000000000000000000000';
const QUOTA_KEY = 'sk-bf-ingress-quota-0000000000000000000000000';

const anthropic = (key = DEMO_KEY) => new Anthropic({ apiKey: key, baseURL: `${env.gw.url}/api`, maxRetries: 0 });
const google = (key = DEMO_KEY) => new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: `${env.gw.url}/api` } });
const MODES = [false, true] as const;
const upstreamModels = () => env.mock.requests.map((r) => r.model);

/** One Messages call, streamed (the SDK's assembled message) or not. */
async function ask(key: string, model: string, content: string, stream: boolean) {
  const params = { model, max_tokens: 50, messages: [{ role: 'user' as const, content }] };
  if (!stream) return anthropic(key).messages.create(params).withResponse();
  const running = anthropic(key).messages.stream(params);
  return { data: await running.finalMessage(), response: (await running.withResponse()).response };
}

/** One generateContent call's text, streamed or not. */
async function generate(key: string, model: string, text: string, stream: boolean): Promise<string> {
  if (!stream) return (await google(key).models.generateContent({ model, contents: text })).text ?? '';
  let all = '';
  for await (const chunk of await google(key).models.generateContentStream({ model, contents: text })) all += chunk.text ?? '';
  return all;
}

const failure = (promise: Promise<unknown>) => promise.then(() => expect.fail('expected an error'), (error: unknown) => error);

describe("a model config's fallbacks serve these SDKs' clients, who cannot send the body's", () => {
  const PRIMARIES = [
    { model: 'flaky', failing: 'fail-503' }, // a chat upstream
    { model: 'flaky-msgs', failing: 'fail-529' }, // a Messages-API upstream, its body passed on natively
  ];
  for (const { model, failing } of PRIMARIES) {
    it.each(MODES)(`Anthropic SDK, ${model} (stream: %s): the fallback answers, the log and cost follow it`, async (stream) => {
      const { data, response } = await ask(DEMO_KEY, model, `fall over from ${model} ${stream}`, stream);
      expect(data.type).toBe('message');
      expect(data.content).toMatchObject([{ type: 'text', text: `Echo: fall over from ${model} ${stream}` }]);
      expect(data.stop_reason).toBe('end_turn');
      expect(upstreamModels()).toEqual([failing, 'primary']);
      const record = await waitForLogRecord(env.gw, response.headers.get('request-id')!);
      expect(record).toMatchObject({ endpoint: 'messages', model: 'backup', provider: 'main', status: 'success', billed: true });
      expect(record.attempts.map((a: { model: string; kind: string }) => [a.model, a.kind])).toEqual([[model, 'first'], ['backup', 'fallback']]);
      // backup's prices (5 and 7 per 1K tokens).
      expect(record.cost.input).toBeCloseTo((record.request_tokens * 5) / 1000, 9);
      expect(record.cost.output).toBeCloseTo((record.response_tokens * 7) / 1000, 9);
    });
  }

  for (const { model, failing } of [{ model: 'flaky', failing: 'fail-503' }, { model: 'flaky-gen', failing: 'fail-503' }]) {
    it.each(MODES)(`Google GenAI SDK, ${model} (stream: %s): the fallback answers`, async (stream) => {
      const text = `fall over from ${model} ${stream}`;
      expect(await generate(DEMO_KEY, model, text, stream)).toBe(`Echo: ${text}`);
      expect(upstreamModels()).toEqual([failing, 'primary']);
    });
  }
});

describe('limits, quotas and permissions answer in the client\'s shape', () => {
  it('a key over its rate limit: 429 rate_limit_error with Retry-After (Messages), RESOURCE_EXHAUSTED (generateContent)', async () => {
    await anthropic(LIMITED_KEY).messages.create({ model: 'backup', max_tokens: 10, messages: [{ role: 'user', content: 'once' }] });
    const refused = (await failure(anthropic(LIMITED_KEY).messages.create({ model: 'backup', max_tokens: 10, messages: [{ role: 'user', content: 'twice' }] }))) as InstanceType<typeof Anthropic.APIError>;
    expect(refused).toBeInstanceOf(Anthropic.RateLimitError);
    expect(refused.error).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    expect(Number(refused.headers?.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers?.get('request-id')).toMatch(/^req_/);
    const google429 = await fetch(`${env.gw.url}/api/v1beta/models/backup:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': LIMITED_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ parts: [{ text: 'thrice' }] }] }),
    });
    expect(google429.status).toBe(429);
    expect(Number(google429.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await google429.json()).error).toMatchObject({ code: 429, status: 'RESOURCE_EXHAUSTED' });
    expect(upstreamModels()).toEqual(['primary']); // the refusals called no upstream
  });

  it("a group's spent token quota: 429 in either shape, before any upstream call", async () => {
    await anthropic(QUOTA_KEY).messages.create({ model: 'backup', max_tokens: 10, messages: [{ role: 'user', content: 'spend it' }] });
    await expect.poll(async () => (await api(env.gw, 'GET', '/v1/admin/groups/small')).body.quota_used).toBeGreaterThan(1);
    const refused = (await failure(anthropic(QUOTA_KEY).messages.create({ model: 'backup', max_tokens: 10, messages: [{ role: 'user', content: 'more' }] }))) as InstanceType<typeof Anthropic.APIError>;
    expect(refused.status).toBe(429);
    expect(refused.error).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    const error = (await failure(google(QUOTA_KEY).models.generateContent({ model: 'backup', contents: 'more' }))) as ApiError;
    expect(error.status).toBe(429);
    expect(JSON.parse(error.message)).toMatchObject({ error: { code: 429, status: 'RESOURCE_EXHAUSTED', details: [expect.objectContaining({ reason: 'insufficient_quota' })] } });
    expect(upstreamModels()).toEqual(['primary']);
  });

  it('a model the key may not use: 403, never a fallback it may not use either', async () => {
    const refused = (await failure(anthropic(NARROW_KEY).messages.create({ model: 'claude', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }))) as InstanceType<typeof Anthropic.APIError>;
    expect(refused).toBeInstanceOf(Anthropic.PermissionDeniedError);
    expect(refused.error).toMatchObject({ type: 'error', error: { type: 'permission_error' } });
    const error = (await failure(google(NARROW_KEY).models.generateContent({ model: 'claude', contents: 'hi' }))) as ApiError;
    expect(error.status).toBe(403);
    expect(JSON.parse(error.message)).toMatchObject({ error: { code: 403, status: 'PERMISSION_DENIED' } });
    // The key may use backup, the configured fallback of flaky, but not flaky itself.
    expect(await failure(anthropic(NARROW_KEY).messages.create({ model: 'flaky', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }))).toMatchObject({ status: 403 });
    expect(env.mock.requests).toHaveLength(0);
  });
});

describe('the response cache', () => {
  it.each([
    ['a chat upstream', 'backup'],
    ['a Messages-API upstream', 'claude'],
  ])('answers a repeated Messages request from the cache, in Anthropic\'s shape (%s)', async (_, model) => {
    const params = { model, max_tokens: 40, system: 'Be brief.', messages: [{ role: 'user' as const, content: `cache me, ${model}` }] };
    const first = await anthropic().messages.create(params).withResponse();
    const second = await anthropic().messages.create(params).withResponse();
    expect([first.response.headers.get('x-cache'), second.response.headers.get('x-cache')]).toEqual(['miss', 'hit']);
    expect(env.mock.requests).toHaveLength(1);
    expect(second.data).toMatchObject({ type: 'message', role: 'assistant', model, content: first.data.content, stop_reason: first.data.stop_reason });
    expect(second.data.id).toMatch(/^msg_/);
    const record = await waitForLogRecord(env.gw, second.response.headers.get('request-id')!);
    expect(record).toMatchObject({ endpoint: 'messages', cache_hit: true });
  });
});

describe('statistics and costs', () => {
  it('count Messages and generateContent calls, priced by the model that served', async () => {
    const day = new Date().toISOString().slice(0, 10);
    const cost = async () => (await api(env.gw, 'GET', `/v1/statistics/cost?start_date=${day}&end_date=${day}&api_key_id=narrow-key`, undefined, MASTER_KEY)).body.summary.total_cost as number;
    const before = await cost();
    const { response } = await anthropic(NARROW_KEY).messages.create({ model: 'backup', max_tokens: 20, messages: [{ role: 'user', content: 'price me' }] }).withResponse();
    const priced = await waitForLogRecord(env.gw, response.headers.get('request-id')!);
    expect(priced.cost.total).toBeGreaterThan(0);
    await expect.poll(cost).toBeCloseTo(before + Number(priced.cost.total), 9);
  });
});
