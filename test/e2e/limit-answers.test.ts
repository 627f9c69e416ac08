/**
 * What limit answers tell a client that paces itself (embedded store): `x-ratelimit-reset-requests`
 * is the time until the window is empty again, a periodic quota's refusal says when to come back
 * (Retry-After, with the rate headers), a quota that never starts over does not, and an account
 * cannot win a spent daily quota back by changing its time zone. Time is moved with a fake `Date`.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { api, startMockUpstream, startTestGateway, type MockUpstream, type TestGateway } from '../_setup.ts';

const key = (name: string) => `sk-bf-answers-${name}-0000000000000000000000000000`;
let upstream: MockUpstream;
let gw: TestGateway;

const at = (iso: string) => vi.setSystemTime(new Date(iso));

async function chat(name: string, content = 'one two three four five') {
  const res = await fetch(`${gw.url}/api/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key(name)}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as { error?: { code: string; message: string } } };
}

/** Calls until one is refused; returns the refusal. */
async function spendAll(name: string) {
  for (let i = 0; i < 50; i++) {
    const answer = await chat(name);
    if (answer.status !== 200) return answer;
  }
  throw new Error('the budget never closed');
}

beforeAll(async () => {
  upstream = await startMockUpstream();
  gw = await startTestGateway('limit-answers.yaml', { MOCK_URL: `${upstream.url}/v1` });
  vi.useFakeTimers({ toFake: ['Date'] });
});
afterAll(async () => {
  vi.useRealTimers();
  await gw?.close();
  await upstream?.close();
});

describe('limit answers', () => {
  it('x-ratelimit-reset-requests is the time until the window is empty again, even while requests remain', async () => {
    const first = await chat('paced');
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit-requests')).toBe('5');
    expect(first.headers.get('x-ratelimit-remaining-requests')).toBe('4');
    // The hit just counted leaves the 60 s window in about 60 s: not "0s" although 4 remain.
    expect(first.headers.get('x-ratelimit-reset-requests')).toMatch(/^(59|60)s$/);
    for (let i = 0; i < 4; i++) expect((await chat('paced')).status).toBe(200);
    const refused = await chat('paced');
    expect(refused.status).toBe(429);
    expect(refused.body.error?.code).toBe('rate_limit_exceeded');
    expect(refused.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(refused.headers.get('x-ratelimit-reset-requests')).toMatch(/^(59|60)s$/);
    // Retry-After stays the time until the next slot frees (the oldest hit leaves the window).
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
  });

  it("a periodic quota's refusal carries Retry-After until its period resets, and the rate headers", async () => {
    at('2026-11-25T03:00:00Z');
    const refused = await spendAll('daily');
    expect(refused.status).toBe(429);
    expect(refused.body.error?.code).toBe('insufficient_quota');
    expect(refused.body.error?.message).toContain('2026-11-26T00:00:00Z');
    expect(refused.headers.get('retry-after')).toBe(String(21 * 3600)); // until UTC midnight
    expect(refused.headers.get('x-ratelimit-limit-requests')).toBe('100');
    expect(Number(refused.headers.get('x-ratelimit-remaining-requests'))).toBeGreaterThan(0);
    expect(refused.headers.get('x-ratelimit-reset-requests')).toMatch(/^\d+s$/);
  });

  it("a quota that never starts over is refused without Retry-After, and says so", async () => {
    const refused = await spendAll('lifetime');
    expect(refused.status).toBe(429);
    expect(refused.body.error?.code).toBe('insufficient_quota');
    expect(refused.body.error?.message).toMatch(/does not start over/);
    expect(refused.headers.get('retry-after')).toBeNull();
  });

  it("changing the account's time zone does not give a spent daily quota back", async () => {
    at('2026-11-25T03:00:00Z'); // the budget above is spent for UTC's Nov 25; in Los Angeles it is still Nov 24
    const before = (await api(gw, 'GET', '/v1/api-keys', undefined, key('daily'))).body.data[0];
    expect(before.quota_used).toBeGreaterThanOrEqual(30);
    for (const timezone of ['America/Los_Angeles', 'Asia/Tokyo', 'UTC']) {
      expect((await api(gw, 'PUT', '/v1/settings', { account: { timezone } }, key('daily'))).status).toBe(200);
      const shown = (await api(gw, 'GET', '/v1/api-keys', undefined, key('daily'))).body.data[0];
      expect(shown.quota_used).toBeGreaterThanOrEqual(before.quota_used);
      const refused = await chat('daily');
      expect(refused.status).toBe(429);
      expect(refused.body.error?.code).toBe('insufficient_quota');
    }
  });
});
