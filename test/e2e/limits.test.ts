/**
 * Enforcement e2e: model permissions (403), per-key rate limits (429 + headers), group and
 * provider token quotas (reserve, settle, 429 insufficient_quota, streams too), and the
 * concurrency limit with group priority and dedicated pools (fixture: max_concurrent_requests 1).
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, MASTER_KEY, startMockUpstream, startTestGateway, type MockUpstream, type TestGateway } from '../_setup.ts';

const key = (name: string) => `sk-bf-limits-${name}-0000000000000000000000000000`;
let upstream: MockUpstream;
let gw: TestGateway;

const ask = (name: string, content = 'hello there', model = 'gpt-4o-mini', extra: Record<string, unknown> = {}) =>
  client(gw, key(name)).chat.completions.create({ model, messages: [{ role: 'user', content }], ...extra } as any);

async function admin(path: string) {
  const res = await fetch(`${gw.url}${path}`, { headers: { authorization: `Bearer ${MASTER_KEY}` } });
  return res.json() as Promise<any>;
}

beforeAll(async () => {
  upstream = await startMockUpstream();
  gw = await startTestGateway('limits.yaml', { MOCK_URL: `${upstream.url}/v1` });
});
afterAll(async () => {
  await gw?.close();
  await upstream?.close();
});

describe('permission', () => {
  it('a key limited to some models gets 403 model_not_permitted for others (primary and fallbacks)', async () => {
    await expect(ask('models')).resolves.toBeTruthy();
    const err = await ask('models', 'x', 'gpt-4o').catch((e) => e);
    expect(err.status).toBe(403);
    expect(err.error).toMatchObject({ code: 'model_not_permitted', param: 'model', type: 'permission_error' });
    const fallback = await ask('models', 'x', 'gpt-4o-mini', { fallbacks: ['mock/gpt-4o'] }).catch((e) => e);
    expect(fallback.status).toBe(403);
    expect(fallback.error.param).toBe('fallbacks[0]');
  });

  it('the models list shows a restricted key only what it may call', async () => {
    const list = await client(gw, key('models')).models.list();
    expect(list.data.map((m) => m.id)).toEqual(['gpt-4o-mini']);
    const group = await client(gw, 'sk-bf-limits-restricted-0000000000000000000000000000').models.list();
    expect(group.data.map((m) => m.id)).not.toContain('gpt-4o-mini');
  });

  it("the account group's model list applies too", async () => {
    const err = await client(gw, 'sk-bf-limits-restricted-0000000000000000000000000000')
      .chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] })
      .catch((e) => e);
    expect(err.status).toBe(403);
    expect(err.code).toBe('model_not_permitted');
  });

  it('an unknown key is 401 invalid_api_key', async () => {
    const err = await client(gw, 'sk-bf-nope').chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }).catch((e) => e);
    expect(err.status).toBe(401);
    expect(err.code).toBe('invalid_api_key');
  });
});

describe('rate limit', () => {
  it('per-key requests per minute: headers on success, 429 with Retry-After after the limit', async () => {
    const api = client(gw, key('limited'));
    const first = await api.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'a' }] }).withResponse();
    expect(first.response.headers.get('x-ratelimit-limit-requests')).toBe('2');
    expect(first.response.headers.get('x-ratelimit-remaining-requests')).toBe('1');
    const second = await api.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'b' }] }).withResponse();
    expect(second.response.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    const before = upstream.requests.length;
    const err = await api.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'c' }] }).catch((e) => e);
    expect(err.status).toBe(429);
    expect(err.code).toBe('rate_limit_exceeded');
    expect(Number(err.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(err.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(err.headers.get('x-ratelimit-limit-requests')).toBe('2');
    expect(err.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(upstream.requests.length).toBe(before); // refused before any upstream call
  });
});

describe('quotas', () => {
  it('group quota: the real usage is settled, quota_used shows it, and an exhausted quota is 429 insufficient_quota', async () => {
    const answer = await ask('quota', 'one two three four five six');
    const used = answer.usage!.total_tokens;
    expect(used).toBeGreaterThanOrEqual(10);
    await expect.poll(async () => (await admin('/v1/admin/groups/small')).quota_used).toBe(used);
    const err = await ask('quota').catch((e) => e);
    expect(err.status).toBe(429);
    expect(err.error).toMatchObject({ code: 'insufficient_quota', type: 'insufficient_quota' });
    // the refused request reserved nothing
    expect((await admin('/v1/admin/groups/small')).quota_used).toBe(used);

    // An admin resets the counter (only to 0) without touching the file; calls flow again.
    const put = (body: unknown) =>
      fetch(`${gw.url}/v1/admin/groups/small`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${MASTER_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const refused = await put({ quota_used: 5 });
    expect(refused.status).toBe(400);
    expect((await refused.json()).error).toMatchObject({ param: 'quota_used', code: 'invalid_value' });
    const fileBefore = await readFile(gw.configFile, 'utf8');
    const reset = await put({ quota_used: 0 });
    expect(reset.status).toBe(200);
    expect((await reset.json()).quota_used).toBe(0);
    expect(await readFile(gw.configFile, 'utf8')).toBe(fileBefore);
    expect((await ask('quota', 'hi')).choices[0].message.content).toBe('Echo: hi');
  });

  it('provider quota: exhausted provider is 429, but a fallback on another provider still serves', async () => {
    const first = await ask('plain', 'metered call', 'metered');
    expect(first.model).toBe('metered');
    await expect.poll(async () => (await admin('/v1/admin/providers/metered')).quota_used).toBe(first.usage!.total_tokens);
    const err = await ask('plain', 'again', 'metered').catch((e) => e);
    expect(err.status).toBe(429);
    expect(err.code).toBe('insufficient_quota');
    const viaFallback = await ask('plain', 'again', 'metered', { fallbacks: ['gpt-4o-mini'] });
    expect(viaFallback.model).toBe('gpt-4o-mini');
  });

  it("provider quota: the master key's calls count too, and it is refused once the quota is spent", async () => {
    const master = (content: string) =>
      client(gw, MASTER_KEY).chat.completions.create({ model: 'metered-admin/metered-model', messages: [{ role: 'user', content }] });
    const first = await master('one two three');
    await expect.poll(async () => (await admin('/v1/admin/providers/metered-admin')).quota_used).toBe(first.usage!.total_tokens);
    await expect(master('again')).rejects.toMatchObject({ status: 429, code: 'insufficient_quota' });
  });

  it('streamed answers are settled with their real usage', async () => {
    const before = (await admin('/v1/admin/groups/big')).quota_used;
    const stream = await client(gw, key('stream')).chat.completions.create({
      model: 'gpt-4o-mini', stream: true, stream_options: { include_usage: true }, max_tokens: 5000,
      messages: [{ role: 'user', content: 'stream me some words please' }],
    });
    let usage = 0;
    for await (const chunk of stream) if (chunk.usage) usage = chunk.usage.total_tokens;
    expect(usage).toBeGreaterThan(0);
    // reserved ~5000 before the call, settled to the real figure after the last byte
    await expect.poll(async () => (await admin('/v1/admin/groups/big')).quota_used).toBe(before + usage);
  });
});

describe('concurrency and priority (max_concurrent_requests: 1)', () => {
  it('queued requests are admitted by group priority (priority_queue groups first, higher first)', async () => {
    upstream.setBehavior('hold', { delayMs: 600, times: 1 });
    const order: string[] = [];
    const holder = ask('plain', 'holder', 'mock/hold');
    await new Promise((r) => setTimeout(r, 100));
    const queued = [];
    for (const name of ['plain', 'low', 'vip']) {
      queued.push(ask(name, `from ${name}`).then(() => order.push(name)));
      await new Promise((r) => setTimeout(r, 50));
    }
    await Promise.all([holder, ...queued]);
    const arrivals = upstream.requests.map((r) => r.body.messages?.[0]?.content).filter((c: string) => /^from /.test(c));
    expect(arrivals.slice(-3)).toEqual(['from vip', 'from low', 'from plain']);
    expect(order).toEqual(['vip', 'low', 'plain']);
  });

  it('a dedicated_channel group is served while the shared pool is saturated', async () => {
    upstream.setBehavior('hold', { delayMs: 800, times: 1 });
    const holder = ask('plain', 'holder', 'mock/hold');
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    await ask('ded', 'dedicated');
    expect(Date.now() - started).toBeLessThan(500);
    await holder;
  });

  it('a request that waits longer than queue_timeout_ms is 503 queue_timeout', async () => {
    upstream.setBehavior('hold', { delayMs: 2500, times: 1 });
    const holder = ask('plain', 'holder', 'mock/hold');
    await new Promise((r) => setTimeout(r, 100));
    const err = await ask('low', 'waits too long').catch((e) => e);
    expect(err.status).toBe(503);
    expect(err.code).toBe('queue_timeout');
    await holder;
  });
});
