import { describe, expect, it } from 'vitest';
import { createContext } from '../pipeline/context.ts';
import type { Principal } from '../pipeline/principal.ts';
import { StreamAssembly } from '../pipeline/stream-assembly.ts';
import { createTestContext, testConfig, testRuntime } from '../pipeline/test-context.ts';
import { quotaCounter, quotaKey } from '../quota/counter.ts';
import rateLimit, { actualTokens, reserveEstimate } from './rate-limit.ts';

const silent = { info() {}, warn() {}, error() {} };

const options = { default_reserve_tokens: 100, max_reserve_tokens: 10_000 };

/** A context as the inference route builds it: the parsed body and the text it came from. */
function received(body: Record<string, unknown>) {
  const base = createTestContext();
  const runtime = testRuntime();
  return createContext({
    request: base.request, endpoint: 'chat', runtime, snapshot: runtime.current(), ip: '127.0.0.1',
    body: body as never, rawBody: body, rawBodyText: JSON.stringify(body), signal: base.signal,
  });
}

describe('token reservation estimate', () => {
  it('sizes the prompt from the request text as received (4 characters a token), plus the completion allowance', () => {
    const body = { model: 'm', messages: [{ role: 'user', content: 'x'.repeat(4000) }], max_tokens: 50 };
    const ctx = received(body);
    expect(reserveEstimate(ctx, options)).toBe(Math.ceil(JSON.stringify(body).length / 4) + 50);
  });

  it('counts tools as prompt input, and caps the reservation', () => {
    const tools = [{ type: 'function', function: { name: 'f', description: 'd'.repeat(8000), parameters: {} } }];
    const withTools = received({ model: 'm', messages: [{ role: 'user', content: 'hi' }], tools });
    const without = received({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    expect(reserveEstimate(withTools, options) - reserveEstimate(without, options)).toBeGreaterThanOrEqual(2000);
    expect(reserveEstimate(received({ model: 'm', messages: [{ role: 'user', content: 'y'.repeat(100_000) }] }), options)).toBe(10_000);
  });

  it('falls back to the messages when no request text was read (in-process contexts)', () => {
    const ctx = createTestContext({ messages: [{ role: 'user', content: 'z'.repeat(400) }] });
    expect(reserveEstimate(ctx, options)).toBe(Math.ceil(JSON.stringify(ctx.body.messages).length / 4) + 100);
  });

  it('settles a stream without usage on the estimate of what was sent and received', () => {
    const ctx = received({ model: 'm', messages: [{ role: 'user', content: 'hello there' }] });
    const outcome = { ...ctx.outcome, text: 'a'.repeat(40) };
    expect(actualTokens(ctx, outcome)).toBe(Math.ceil(ctx.rawBodyText!.length / 4) + 10);
    expect(actualTokens(ctx, { ...outcome, usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } })).toBe(7);
  });

  it('counts streamed tool calls too: a stream of tool calls cut before its usage is never free', () => {
    const ctx = received({ model: 'm', messages: [{ role: 'user', content: 'hello there' }] });
    const assembly = new StreamAssembly();
    const call = { index: 0, id: 'call_1', type: 'function' as const, function: { name: 'f', arguments: 'x'.repeat(77) } };
    assembly.add({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta: { tool_calls: [call] }, finish_reason: null }] });
    expect(actualTokens(ctx, { ...ctx.outcome, streamed: true, assembly })).toBe(Math.ceil(ctx.rawBodyText!.length / 4) + 20);
  });
});

describe('token budgets', () => {
  const config = testConfig(`
providers:
  - { id: metered, type: compat, endpoint: http://127.0.0.1:9/v1, quota_limit: 1000, quota_period: daily }
groups:
  - { id: team, quota_limit: 0 }
accounts:
  - { id: alice, email: alice@example.com, group: team }
keys:
  - id: budgeted
    key_hash: sha256:${'0'.repeat(64)}
    account: alice
    permissions: { quota_limit: 50, quota_period: monthly }
`);
  const runtime = testRuntime(config);
  let clock = Date.parse('2026-11-25T12:00:00Z');
  const served = (ctx: ReturnType<typeof createTestContext>, total: number) => ({
    ...ctx.outcome, status: 200, usage: { prompt_tokens: total - 1, completion_tokens: 1, total_tokens: total },
    served: { model: 'm', provider: 'metered', upstreamModel: 'm' },
  });
  const provider = runtime.current().providers.get('metered')!;
  const principals: Record<string, Principal> = {
    master: { kind: 'master', accountId: 'admin', role: 'admin' },
    oauth: { kind: 'oauth', accountId: 'alice', role: 'member', groupId: 'team', scopes: new Set() },
    key: { kind: 'key', accountId: 'alice', role: 'member', groupId: 'team', key: runtime.current().keysById.get('budgeted')! },
  };

  async function call(who: keyof typeof principals, total: number) {
    const plugin = await rateLimit.setup({ default_reserve_tokens: 10, max_reserve_tokens: 100 }, { runtime, logger: silent, now: () => clock });
    const ctx = createTestContext({}, runtime);
    ctx.principal = principals[who];
    ctx.targets.push({ provider, upstreamModel: 'm', requestedAs: 'm' });
    await plugin.handle!(ctx, async () => new Response('{}'));
    await plugin.onComplete!(ctx, served(ctx, total));
  }
  const used = (key: string) => runtime.store.getCounters([key]).then(([n]) => n);
  const today = () => quotaCounter('provider', 'metered', 'daily', 'UTC', clock).key;

  it("counts every caller's tokens against the provider's quota: master key, OAuth token and API key", async () => {
    await call('master', 7);
    expect(await used(today())).toBe(7);
    await call('oauth', 11);
    expect(await used(today())).toBe(18);
    expect(await used(quotaKey('group', 'team'))).toBe(11);
    await call('key', 13);
    expect(await used(today())).toBe(31);
    expect(await used(quotaKey('group', 'team'))).toBe(24);
  });

  it('refuses the master key too once the provider quota is spent, and the next day counts from 0', async () => {
    await runtime.store.incrBy(today(), 1000);
    // Every target's provider is spent: refused before the store call, still saying when to come back.
    await expect(call('master', 1)).rejects.toMatchObject({ status: 429, code: 'insufficient_quota', headers: { 'retry-after': String(12 * 3600) } });
    clock = Date.parse('2026-11-26T00:00:00Z');
    await call('master', 5);
    expect(await used(today())).toBe(5);
  });

  it("a key's budget refuses with insufficient_quota naming the key, and starts over with the month", async () => {
    const month = () => quotaCounter('key', 'budgeted', 'monthly', 'UTC', clock).key;
    await runtime.store.del(month()); // the first test spent some of it
    await call('key', 60);
    expect(await used(month())).toBe(60);
    await expect(call('key', 1)).rejects.toMatchObject({ status: 429, code: 'insufficient_quota', message: expect.stringContaining('this API key') });
    clock = Date.parse('2026-12-01T00:00:00Z');
    await call('key', 3);
    expect(await used(month())).toBe(3);
  });
});

describe('quota refusals', () => {
  const config = testConfig(`
providers:
  - { id: p, type: compat, endpoint: http://127.0.0.1:9/v1 }
groups:
  - { id: team }
  - { id: capped, quota_limit: 20 }
accounts:
  - { id: alice, email: alice@example.com, group: team }
  - { id: bob, email: bob@example.com, group: capped }
keys:
  - id: daily
    key_hash: sha256:${'1'.repeat(64)}
    account: alice
    permissions: { rate_limit: 10, quota_limit: 20, quota_period: daily }
`);
  const clock = Date.parse('2026-11-25T18:00:00Z');

  async function refusal(principal: (runtime: ReturnType<typeof testRuntime>) => Principal, spent: string) {
    const runtime = testRuntime(config);
    await runtime.store.incrBy(spent, 20);
    const plugin = await rateLimit.setup(options, { runtime, logger: silent, now: () => clock });
    const ctx = createTestContext({}, runtime);
    ctx.principal = principal(runtime);
    ctx.targets.push({ provider: runtime.current().providers.get('p')!, upstreamModel: 'm', requestedAs: 'm' });
    return plugin.handle!(ctx, async () => new Response('{}')).then(() => undefined, (error: { status: number; message: string; headers: Record<string, string> }) => error);
  }

  it("a periodic budget's refusal carries Retry-After until its period resets, and the rate headers", async () => {
    const error = await refusal(
      (runtime) => ({ kind: 'key', accountId: 'alice', role: 'member', groupId: 'team', key: runtime.current().keysById.get('daily')! }),
      quotaCounter('key', 'daily', 'daily', 'UTC', clock).key,
    );
    expect(error).toMatchObject({ status: 429, code: 'insufficient_quota' });
    expect(error!.message).toBe('The token quota of this API key is exhausted (20 of 20 used); it starts over at 2026-11-26T00:00:00Z.');
    expect(error!.headers).toEqual({
      'retry-after': String(6 * 3600),
      'x-ratelimit-limit-requests': '10',
      'x-ratelimit-remaining-requests': '10',
      'x-ratelimit-reset-requests': '0s',
    });
  });

  it("a budget that never starts over is refused without Retry-After, and says so", async () => {
    const error = await refusal(() => ({ kind: 'oauth', accountId: 'bob', role: 'member', groupId: 'capped', scopes: new Set() }), quotaKey('group', 'capped'));
    expect(error).toMatchObject({ status: 429, code: 'insufficient_quota' });
    expect(error!.message).toMatch(/^The token quota of your group is exhausted \(20 of 20 used\); it does not start over on its own/);
    expect(error!.headers).toEqual({});
  });
});

describe('budgets without a limit', () => {
  const config = testConfig(`
providers:
  - { id: open, type: compat, endpoint: http://127.0.0.1:9/v1 }
groups:
  - { id: team, quota_limit: 0 }
accounts:
  - { id: alice, email: alice@example.com, group: team }
`);

  it('are only counted: no store call before the call, the real usage after it', async () => {
    const runtime = testRuntime(config);
    const calls: string[] = [];
    const store = runtime.store;
    const admit = store.admit.bind(store);
    store.admit = (rates, quotas) => {
      calls.push('admit');
      return admit(rates, quotas);
    };
    const plugin = await rateLimit.setup(options, { runtime, logger: silent, now: () => Date.now() });
    const ctx = createTestContext({}, runtime);
    ctx.principal = { kind: 'oauth', accountId: 'alice', role: 'member', groupId: 'team', scopes: new Set() };
    ctx.targets.push({ provider: runtime.current().providers.get('open')!, upstreamModel: 'm', requestedAs: 'm' });
    let ran = false;
    await plugin.handle!(ctx, async () => {
      ran = true;
      // Nothing reserved while the call runs: an unlimited counter holds only real usage.
      expect(await store.getCounters([quotaKey('group', 'team'), quotaKey('provider', 'open')])).toEqual([0, 0]);
      return new Response('{}');
    });
    expect(ran).toBe(true);
    expect(calls).toEqual([]);
    await plugin.onComplete!(ctx, { ...ctx.outcome, status: 200, usage: { prompt_tokens: 8, completion_tokens: 4, total_tokens: 12 }, served: { model: 'm', provider: 'open', upstreamModel: 'm' } });
    expect(await store.getCounters([quotaKey('group', 'team'), quotaKey('provider', 'open')])).toEqual([12, 12]);
  });
});
