/**
 * Quota periods, from outside, on two instances sharing one Redis: a daily group budget, a
 * weekly provider budget and a key's monthly budget start over at their period's first instant
 * (gateway time zone; the key's in its account's), for every instance at once and on one shared
 * counter, and GET shows quota_used, quota_period and quota_resets_at; a time zone change never
 * gives a spent key budget back. Time is moved with a fake `Date` (timers stay real, so servers and
 * Redis run as usual).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startRedisInstance, TEST_REDIS, type Instance } from '../_instances.ts';
import { api, client, startMockUpstream, type MockUpstream } from '../_setup.ts';

const prefix = `test:periods:${randomBytes(6).toString('hex')}:`;
const key = (name: string) => `sk-bf-periods-${name}-0000000000000000000000000000`;
let upstream: MockUpstream;
let a: Instance;
let b: Instance;

const at = (iso: string) => vi.setSystemTime(new Date(iso));
const ask = (on: Instance, name: string) =>
  client(on, key(name)).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'one two three four five' }] });

/** Calls alternately on A and B until one is refused; returns the refusal. */
async function spendAll(name: string) {
  for (let i = 0; i < 50; i++) {
    const error = await ask(i % 2 ? b : a, name).then(() => undefined, (e: { status: number }) => e);
    if (error) return error;
  }
  throw new Error('the budget never closed');
}

beforeAll(async () => {
  upstream = await startMockUpstream();
  const env = { MOCK_URL: `${upstream.url}/v1` };
  [a, b] = await Promise.all([startRedisInstance('quota-periods.yaml', TEST_REDIS, prefix, env), startRedisInstance('quota-periods.yaml', TEST_REDIS, prefix, env)]);
  vi.useFakeTimers({ toFake: ['Date'] });
});
afterAll(async () => {
  vi.useRealTimers();
  await Promise.all([a?.close(), b?.close()]);
  await upstream?.close();
});

describe('quota periods on two instances', () => {
  it('a daily group quota is refused on both instances, then starts over at midnight on one shared counter', async () => {
    at('2026-11-25T23:58:00Z');
    expect((await api(a, 'GET', '/v1/admin/groups/daily')).body).toMatchObject({
      quota_limit: 30, quota_used: 0, quota_period: 'daily', quota_resets_at: '2026-11-26T00:00:00Z',
    });
    const refused = await spendAll('daily');
    expect(refused).toMatchObject({ status: 429, code: 'insufficient_quota' });
    await expect(ask(a, 'daily')).rejects.toMatchObject({ status: 429 });
    await expect(ask(b, 'daily')).rejects.toMatchObject({ status: 429 });
    const spent = (await api(b, 'GET', '/v1/admin/groups/daily')).body.quota_used;
    expect(spent).toBeGreaterThanOrEqual(30);

    at('2026-11-26T00:00:00Z');
    for (const on of [a, b]) {
      expect((await api(on, 'GET', '/v1/admin/groups/daily')).body).toMatchObject({ quota_used: 0, quota_resets_at: '2026-11-27T00:00:00Z' });
    }
    const first = await ask(a, 'daily');
    const second = await ask(b, 'daily');
    const both = first.usage!.total_tokens + second.usage!.total_tokens;
    // Both instances count on the one counter of the new day: neither started it over again.
    await expect.poll(async () => (await api(a, 'GET', '/v1/admin/groups/daily')).body.quota_used, { timeout: 10_000 }).toBe(both);
    expect((await api(b, 'GET', '/v1/admin/groups/daily')).body.quota_used).toBe(both);
  });

  it("a provider's weekly quota shows its period and the next Monday as its reset", async () => {
    at('2026-11-25T12:00:00Z'); // a Wednesday
    const provider = (await api(a, 'GET', '/v1/admin/providers/mock')).body;
    expect(provider).toMatchObject({ quota_period: 'weekly', quota_resets_at: '2026-11-30T00:00:00Z' });
    expect(provider.quota_used).toBeGreaterThan(0);
    expect((await api(a, 'GET', '/v1/admin/groups/open')).body).toMatchObject({ quota_period: null, quota_resets_at: null });
  });

  it("a key's monthly budget follows its account's time zone and answers 429 insufficient_quota", async () => {
    at('2026-11-30T15:00:00Z'); // 23:00 in Shanghai, the last hour of November there
    expect((await api(a, 'PUT', '/v1/settings', { account: { timezone: 'Asia/Shanghai' } }, key('budget'))).status).toBe(200);
    const put = await api(a, 'PUT', '/v1/api-keys/budget-key', { permissions: { quota_limit: 20, quota_period: 'monthly' } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      permissions: { quota_limit: 20, quota_period: 'monthly' }, quota_used: 0, quota_period: 'monthly', quota_resets_at: '2026-11-30T16:00:00Z',
    });
    await expect.poll(async () => (await api(b, 'GET', '/v1/api-keys/budget-key')).body.permissions.quota_limit).toBe(20);
    const refused = await spendAll('budget');
    expect(refused).toMatchObject({ status: 429, code: 'insufficient_quota', type: 'insufficient_quota' });
    expect((refused as unknown as { message: string }).message).toContain('this API key');
    expect((await api(b, 'GET', '/v1/api-keys/budget-key')).body.quota_used).toBeGreaterThanOrEqual(20);

    at('2026-11-30T16:00:00Z'); // December in Shanghai
    expect((await ask(b, 'budget')).choices[0]!.message.content).toBe('Echo: one two three four five');
    expect((await api(a, 'GET', '/v1/api-keys/budget-key')).body).toMatchObject({ quota_resets_at: '2026-12-31T16:00:00Z' });
  });

  it("changing the account's time zone never gives a spent daily key budget back, on either instance", async () => {
    at('2026-12-01T03:00:00Z'); // 11:00 on Dec 1 in Shanghai (the account's zone since above), 19:00 on Nov 30 in Los Angeles
    expect((await api(a, 'PUT', '/v1/api-keys/budget-key', { permissions: { quota_limit: 20, quota_period: 'daily' } })).status).toBe(200);
    await expect.poll(async () => (await api(b, 'GET', '/v1/api-keys/budget-key')).body.quota_period).toBe('daily');
    expect(await spendAll('budget')).toMatchObject({ status: 429, code: 'insufficient_quota' });
    const spent = (await api(a, 'GET', '/v1/api-keys/budget-key')).body.quota_used;
    expect(spent).toBeGreaterThanOrEqual(20);

    for (const [timezone, resetsAt] of [['America/Los_Angeles', '2026-12-01T08:00:00Z'], ['Asia/Shanghai', '2026-12-01T16:00:00Z']]) {
      expect((await api(a, 'PUT', '/v1/settings', { account: { timezone } }, key('budget'))).status).toBe(200);
      // B hears of the change and counts in the new zone too, on a counter that kept the usage.
      await expect.poll(async () => (await api(b, 'GET', '/v1/api-keys/budget-key')).body.quota_resets_at).toBe(resetsAt);
      expect((await api(b, 'GET', '/v1/api-keys/budget-key')).body.quota_used).toBeGreaterThanOrEqual(spent);
      await expect(ask(a, 'budget')).rejects.toMatchObject({ status: 429, code: 'insufficient_quota' });
      await expect(ask(b, 'budget')).rejects.toMatchObject({ status: 429, code: 'insufficient_quota' });
    }
  });
});
