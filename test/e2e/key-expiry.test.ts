/**
 * API key expiry (`permissions.expires_at`): a key past it no longer authenticates (401), one
 * before it works, the time is validated (400 naming it), cleared with null, shown in reads, and
 * an expiring key counts as restricted: it cannot lift its own expiry nor mint a key that outlives it.
 */
import { describe, expect, it } from 'vitest';
import { api, client, useGateway } from '../_setup.ts';

const state = useGateway('management.yaml');
const chat = (key: string) => client(state.gw, key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
const hour = 3_600_000;

describe('api key expiry', () => {
  it('a key works until its expiry and is refused (401) after it; null removes the expiry', async () => {
    const future = new Date(Date.now() + hour).toISOString();
    const created = await api(state.gw, 'POST', '/v1/api-keys', { name: 'temp', permissions: { expires_at: future } });
    expect(created.status).toBe(201);
    expect(created.body.permissions).toMatchObject({ expires_at: future });
    expect((await chat(created.body.key)).choices[0]!.message.content).toBeTruthy();

    const past = new Date(Date.now() - 1000).toISOString();
    const expired = await api(state.gw, 'PUT', `/v1/api-keys/${created.body.id}`, { permissions: { expires_at: past } });
    expect(expired.status).toBe(200);
    expect((await api(state.gw, 'GET', `/v1/api-keys/${created.body.id}`)).body.permissions.expires_at).toBe(past);
    await expect(chat(created.body.key)).rejects.toMatchObject({ status: 401 });
    expect((await api(state.gw, 'GET', '/v1/api-keys', undefined, created.body.key)).status).toBe(401);

    const cleared = await api(state.gw, 'PUT', `/v1/api-keys/${created.body.id}`, { permissions: { expires_at: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.permissions).not.toHaveProperty('expires_at');
    expect((await chat(created.body.key)).choices[0]!.message.content).toBeTruthy();
  });

  it('refuses an expiry that is not an ISO 8601 time, naming it', async () => {
    for (const expires_at of ['tomorrow', 1_900_000_000, '2026-13-01T00:00:00Z']) {
      const refused = await api(state.gw, 'POST', '/v1/api-keys', { name: 'bad', permissions: { expires_at } });
      expect(refused.status).toBe(400);
      expect(refused.body.error.param).toBe('permissions.expires_at');
    }
  });

  it('an expiring key cannot lift its own expiry nor create a key without one', async () => {
    const created = await api(state.gw, 'POST', '/v1/api-keys', { name: 'short-lived', permissions: { expires_at: new Date(Date.now() + hour).toISOString() } });
    const own = created.body.key as string;
    const lift = await api(state.gw, 'PUT', `/v1/api-keys/${created.body.id}`, { permissions: { expires_at: null } }, own);
    expect([lift.status, lift.body.error.code]).toEqual([403, 'key_restricted']);
    const mint = await api(state.gw, 'POST', '/v1/api-keys', { name: 'forever' }, own);
    expect([mint.status, mint.body.error.code]).toEqual([403, 'key_restricted']);
    // It may still rename itself.
    expect((await api(state.gw, 'PUT', `/v1/api-keys/${created.body.id}`, { name: 'renamed' }, own)).status).toBe(200);
  });
});
