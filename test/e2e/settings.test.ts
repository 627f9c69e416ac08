/**
 * Settings (spec 2.6, 4.9): per-account GET and partial PUT, every validation error, and the
 * settings taking effect on calls: default_model, stream_by_default, default_temperature.
 * Two gateways on one Redis agree at once (pub/sub cache invalidation).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { client, DEMO_KEY, MASTER_KEY, startMockUpstream, startTestGateway, useGateway } from '../_setup.ts';

const OTHER_KEY = 'sk-bf-test-other-1111111111111111111111111111';
const state = useGateway('settings.yaml');

const DEFAULTS = {
  account: { timezone: 'UTC', language: 'en', currency: 'CNY' },
  notifications: { email_usage_alert: false, email_low_balance: false, email_weekly_report: false, balance_threshold: 0 },
  api: { default_model: null, default_temperature: 0.7, stream_by_default: false },
  security: { ip_whitelist_enabled: false, allowed_ips: [], request_logging: true },
};

async function settings(method: 'GET' | 'PUT', body?: unknown, key = DEMO_KEY, url = state.gw.url) {
  const res = await fetch(`${url}/v1/settings`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

async function chat(body: Record<string, unknown>, key = DEMO_KEY) {
  return fetch(`${state.gw.url}/api/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], ...body }),
  });
}

describe('settings', () => {
  it('starts from the defaults', async () => {
    expect(await settings('GET')).toEqual({ status: 200, body: DEFAULTS });
  });

  it('changes only the named fields and answers the whole object', async () => {
    const first = await settings('PUT', { account: { timezone: 'Asia/Shanghai' } });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ ...DEFAULTS, account: { ...DEFAULTS.account, timezone: 'Asia/Shanghai' } });
    const second = await settings('PUT', { account: { currency: 'USD' }, notifications: { balance_threshold: 500, email_usage_alert: true } });
    expect(second.body.account).toEqual({ timezone: 'Asia/Shanghai', language: 'en', currency: 'USD' });
    expect(second.body.notifications).toEqual({ ...DEFAULTS.notifications, balance_threshold: 500, email_usage_alert: true });
    expect(second.body.security).toEqual(DEFAULTS.security);
    const third = await settings('PUT', { security: { allowed_ips: ['10.0.0.0/8', ' 2001:db8::1 '] }, account: { language: 'zh-cn' } });
    expect(third.body.security).toEqual({ ...DEFAULTS.security, allowed_ips: ['10.0.0.0/8', '2001:db8::1'] });
    expect(third.body.account.language).toBe('zh-CN');
    expect((await settings('GET')).body).toEqual(third.body);
    expect((await settings('PUT', {})).body).toEqual(third.body);
  });

  it('is per account: others, and the master key (account admin), see their own', async () => {
    expect((await settings('GET', undefined, OTHER_KEY)).body).toEqual(DEFAULTS);
    expect((await settings('PUT', { api: { stream_by_default: true } }, MASTER_KEY)).body.api.stream_by_default).toBe(true);
    expect((await settings('GET', undefined, OTHER_KEY)).body.api.stream_by_default).toBe(false);
    expect((await settings('GET')).body.api.stream_by_default).toBe(false);
    expect((await settings('PUT', { api: { stream_by_default: false } }, MASTER_KEY)).status).toBe(200);
  });

  it('refuses every invalid value with 400 naming the field', async () => {
    const cases: Array<[unknown, string, string?]> = [
      [{ account: { timezone: 'Mars/Olympus' } }, 'account.timezone'],
      [{ account: { timezone: 42 } }, 'account.timezone'],
      [{ account: { currency: 'XYZ' } }, 'account.currency'],
      [{ account: { currency: 'usd' } }, 'account.currency'],
      // A real currency, but prices are in CNY and the config gives no rate for it.
      [{ account: { currency: 'EUR' } }, 'account.currency'],
      [{ account: { language: 'not a tag!' } }, 'account.language'],
      [{ account: { language: '' } }, 'account.language'],
      // Well formed, but emails and OAuth pages are written in English and Chinese only.
      [{ account: { language: 'fr' } }, 'account.language'],
      [{ notifications: { balance_threshold: -1 } }, 'notifications.balance_threshold'],
      [{ notifications: { balance_threshold: '5' } }, 'notifications.balance_threshold'],
      [{ notifications: { email_usage_alert: 'yes' } }, 'notifications.email_usage_alert'],
      [{ notifications: { email_low_balance: 1 } }, 'notifications.email_low_balance'],
      [{ notifications: { email_weekly_report: null } }, 'notifications.email_weekly_report'],
      [{ api: { default_temperature: 2.5 } }, 'api.default_temperature'],
      [{ api: { default_temperature: -0.1 } }, 'api.default_temperature'],
      [{ api: { default_model: 7 } }, 'api.default_model'],
      [{ api: { stream_by_default: 'true' } }, 'api.stream_by_default'],
      [{ security: { ip_whitelist_enabled: 'on' } }, 'security.ip_whitelist_enabled'],
      [{ security: { allowed_ips: '10.0.0.1' } }, 'security.allowed_ips'],
      [{ security: { allowed_ips: ['10.0.0.1', '300.1.1.1'] } }, 'security.allowed_ips[1]'],
      [{ security: { allowed_ips: ['10.0.0.0/33'] } }, 'security.allowed_ips[0]'],
      [{ security: { request_logging: 0 } }, 'security.request_logging'],
      [{ account: 'UTC' }, 'account'],
      [{ billing: { plan: 'pro' } }, 'billing', 'unknown_field'],
      [{ account: { nickname: 'x' } }, 'account.nickname', 'unknown_field'],
    ];
    const before = (await settings('GET')).body;
    for (const [body, param, code = 'invalid_value'] of cases) {
      const res = await settings('PUT', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.param, JSON.stringify(body)).toBe(param);
      expect(res.body.error.code, JSON.stringify(body)).toBe(code);
      expect(res.body.error.message).toContain(param.split('[')[0]);
    }
    // A body with one bad field changes nothing, not even its valid fields.
    expect((await settings('PUT', { account: { timezone: 'Europe/Paris', currency: 'NOPE' } })).status).toBe(400);
    expect((await settings('PUT', '[1,2]')).status).toBe(400);
    expect((await settings('GET')).body).toEqual(before);
  });

  it('default_model, stream_by_default and default_temperature apply to calls', async () => {
    // No model and no default: refused.
    expect((await chat({})).status).toBeGreaterThanOrEqual(400);
    await settings('PUT', { api: { default_model: 'gpt-4o', default_temperature: 0.2, stream_by_default: true } });
    state.mock.requests.length = 0;
    const streamed = await chat({});
    expect(streamed.status).toBe(200);
    expect(streamed.headers.get('content-type')).toMatch(/text\/event-stream/);
    expect(await streamed.text()).toContain('data: [DONE]');
    expect(state.mock.requests[0]!.body).toMatchObject({ model: 'gpt-4o', temperature: 0.2, stream: true });
    // What the request names wins.
    const explicit = await chat({ model: 'gpt-4o-mini', stream: false, temperature: 1.1 });
    expect(explicit.headers.get('content-type')).toMatch(/application\/json/);
    expect(((await explicit.json()) as any).model).toBe('gpt-4o-mini');
    expect(state.mock.requests[1]!.body).toMatchObject({ model: 'gpt-4o-mini', temperature: 1.1 });
    // A client that asks for JSON only (the official SDKs leave `stream` out of every plain call) gets JSON.
    const sdk = await client(state.gw).chat.completions.create({ messages: [{ role: 'user', content: 'hi' }] } as never);
    expect(sdk.choices[0]!.message.content).toBeTruthy();
    const stream = await client(state.gw).chat.completions.create({ messages: [{ role: 'user', content: 'hi' }], stream: true } as never);
    let chunks = 0;
    for await (const _chunk of stream as unknown as AsyncIterable<unknown>) chunks++;
    expect(chunks).toBeGreaterThan(0);
    state.mock.requests.length = 2;
    // Another account keeps the gateway defaults.
    expect((await chat({ model: 'gpt-4o-mini' }, OTHER_KEY)).headers.get('content-type')).toMatch(/application\/json/);
    expect(state.mock.requests[2]!.body.temperature).toBe(0.7);
    await settings('PUT', { api: { default_model: null, stream_by_default: false, default_temperature: 0.7 } });
  });
});

describe('settings across instances', () => {
  it('a change on one gateway is seen at once by another on the same Redis', async () => {
    const env = {
      REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      GATEWAY_REDIS_PREFIX: `test-settings-${randomUUID()}:`,
      MOCK_URL: `${state.mock.url}/v1`,
    };
    const a = await startTestGateway('settings.yaml', env);
    const b = await startTestGateway('settings.yaml', env);
    try {
      expect((await settings('GET', undefined, DEMO_KEY, b.url)).body.account.timezone).toBe('UTC'); // cached on b
      await settings('PUT', { account: { timezone: 'America/New_York' } }, DEMO_KEY, a.url);
      let seen = '';
      for (let i = 0; i < 50 && seen !== 'America/New_York'; i++) {
        seen = (await settings('GET', undefined, DEMO_KEY, b.url)).body.account.timezone;
        if (seen !== 'America/New_York') await new Promise((r) => setTimeout(r, 20));
      }
      expect(seen).toBe('America/New_York');
    } finally {
      await a.close();
      await b.close();
    }
  });
});
