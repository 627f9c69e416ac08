/**
 * The account IP allow-list (`ip_whitelist_enabled` + `allowed_ips`): calls and management
 * requests with the account's keys from other addresses are 403 `ip_not_allowed`; the master key
 * is never blocked. X-Forwarded-For counts only when the peer is a configured trusted proxy.
 */
import { describe, expect, it } from 'vitest';
import type { SettingsService } from '../../src/features/settings/service.ts';
import type { LogService } from '../../src/features/logs/service.ts';
import { DEMO_KEY, MASTER_KEY, useGateway } from '../_setup.ts';

const OTHER_KEY = 'sk-bf-test-other-1111111111111111111111111111';

async function chat(url: string, key: string, forwardedFor?: string) {
  const res = await fetch(`${url}/api/v1/chat/completions`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}),
    },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

async function putSettings(url: string, body: unknown, key = DEMO_KEY, forwardedFor?: string) {
  const res = await fetch(`${url}/v1/settings`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe('IP allow-list behind a trusted proxy (127.0.0.1 trusted)', () => {
  const state = useGateway('logs.yaml');

  it('allows the listed client address from X-Forwarded-For and refuses others', async () => {
    const url = state.gw.url;
    expect((await putSettings(url, { security: { ip_whitelist_enabled: true, allowed_ips: ['203.0.113.0/24'] } }, DEMO_KEY, '203.0.113.9')).status).toBe(200);
    expect((await chat(url, DEMO_KEY, '203.0.113.9')).status).toBe(200);
    // A chain: the nearest untrusted hop (right-most not trusted) is the client.
    expect((await chat(url, DEMO_KEY, '198.51.100.1, 203.0.113.10')).status).toBe(200);
    const refused = await chat(url, DEMO_KEY, '198.51.100.1');
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('ip_not_allowed');
    // No header: the proxy itself (127.0.0.1) is the client, not listed.
    expect((await chat(url, DEMO_KEY)).status).toBe(403);
    // The management API is bound too.
    expect((await putSettings(url, { account: { language: 'fr' } }, DEMO_KEY, '198.51.100.1')).status).toBe(403);
    // Other accounts and the master key are not affected.
    expect((await chat(url, OTHER_KEY, '198.51.100.1')).status).toBe(200);
    expect((await chat(url, MASTER_KEY, '198.51.100.1')).status).toBe(200);
    // The log records the client address, not the proxy's; refusals are logged too (unbilled).
    const logs = state.gw.gateway.runtime.services.logs as LogService;
    await logs.queue.flush();
    const served = await logs.store.list({ api_key_id: 'demo-key', status: 'success' }, 1, 10);
    expect(served.items.map((l) => l.ip).sort()).toEqual(['203.0.113.10', '203.0.113.9']);
    const refusals = await logs.store.list({ api_key_id: 'demo-key', status: 'error' }, 1, 10);
    expect(refusals.items.map((l) => l.ip).sort()).toEqual(['127.0.0.1', '198.51.100.1']);
    expect((await logs.store.get(refusals.items[0]!.id))!.error_code).toBe('ip_not_allowed');
    // Turned off (from an allowed address), everyone gets through again.
    expect((await putSettings(url, { security: { ip_whitelist_enabled: false } }, DEMO_KEY, '203.0.113.9')).status).toBe(200);
    expect((await chat(url, DEMO_KEY, '198.51.100.1')).status).toBe(200);
  });
});

describe('IP allow-list without trusted proxies', () => {
  const state = useGateway('settings.yaml');

  it('ignores X-Forwarded-For: only the socket address counts', async () => {
    const url = state.gw.url;
    // Set where the API would refuse it (it would lock this very caller out, see below).
    const settings = state.gw.gateway.runtime.services.settings as SettingsService;
    const defaults = state.gw.gateway.runtime.current().config.settings;
    await settings.update('demo', { security: { ip_whitelist_enabled: true, allowed_ips: ['203.0.113.0/24'] } }, defaults);
    // A spoofed header does not help.
    const spoofed = await chat(url, DEMO_KEY, '203.0.113.9');
    expect(spoofed.status).toBe(403);
    expect(spoofed.body.error.code).toBe('ip_not_allowed');
    await settings.update('demo', { security: { allowed_ips: ['127.0.0.1'] } }, defaults);
    expect((await chat(url, DEMO_KEY, '198.51.100.1')).status).toBe(200);
    expect((await chat(url, DEMO_KEY)).status).toBe(200);
  });

  it('refuses an allow-list that would lock out the address the change comes from', async () => {
    const url = state.gw.url;
    const refused = await putSettings(url, { security: { allowed_ips: ['203.0.113.0/24'] } });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'ip_allow_list_lockout', param: 'security.allowed_ips', type: 'invalid_request_error' });
    expect((await chat(url, DEMO_KEY)).status).toBe(200);
    // With the caller's own address on it, the change goes through; turned off, any list is fine.
    expect((await putSettings(url, { security: { allowed_ips: ['203.0.113.0/24', '127.0.0.0/8'] } })).status).toBe(200);
    expect((await putSettings(url, { security: { ip_whitelist_enabled: false, allowed_ips: ['203.0.113.0/24'] } })).status).toBe(200);
    expect((await putSettings(url, { security: { ip_whitelist_enabled: true } })).status).toBe(400);
  });

  it("lets an admin read and change a locked-out account's settings (the way back), and nobody else", async () => {
    const url = state.gw.url;
    const settings = state.gw.gateway.runtime.services.settings as SettingsService;
    await settings.update('demo', { security: { ip_whitelist_enabled: true, allowed_ips: ['203.0.113.0/24'] } }, state.gw.gateway.runtime.current().config.settings);
    expect((await chat(url, DEMO_KEY)).status).toBe(403);
    const admin = (method: string, path: string, body?: unknown, key = MASTER_KEY) =>
      fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
        .then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
    expect((await admin('GET', '/v1/admin/users/demo/settings')).body.security).toMatchObject({ ip_whitelist_enabled: true, allowed_ips: ['203.0.113.0/24'] });
    const put = await admin('PUT', '/v1/admin/users/demo/settings', { security: { ip_whitelist_enabled: false } });
    expect(put.status).toBe(200);
    expect(put.body.security.ip_whitelist_enabled).toBe(false);
    expect((await chat(url, DEMO_KEY)).status).toBe(200);
    expect((await admin('GET', '/v1/admin/users/nobody/settings')).status).toBe(404);
    expect((await admin('PUT', '/v1/admin/users/demo/settings', { security: { bogus: 1 } })).status).toBe(400);
    expect((await admin('GET', '/v1/admin/users/demo/settings', undefined, DEMO_KEY)).body.error.code).toBe('admin_required');
  });
});
