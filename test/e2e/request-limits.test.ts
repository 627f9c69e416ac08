/**
 * The management API is limited per account and per client address (`management.rate_limit`, here
 * 5 a minute), the OAuth endpoints per client address (`oauth.rate_limit`, here 4), each in a
 * budget of its own, with 429 and Retry-After; the master key is not limited. The test is the
 * fixture's trusted proxy, so X-Forwarded-For picks the address.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MASTER_KEY, startTestGateway, type TestGateway } from '../_setup.ts';

const KEYS = {
  alice: 'sk-bf-signin-alice-000000000000000000000000',
  bob: 'sk-bf-sec-bob-00000000000000000000000000000',
  carol: 'sk-bf-signin-carol-000000000000000000000000',
  dan: 'sk-bf-limits-dan-00000000000000000000000000',
  eve: 'sk-bf-limits-eve-00000000000000000000000000',
};

/** A token request (a made-up code: 400 invalid_grant when admitted). */
const tokenRequest = (url: string, address: string) =>
  fetch(`${url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': address },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: 'nope', client_id: 'dashboard', client_secret: 'dashboard-secret-0123456789', redirect_uri: 'http://127.0.0.1:5999/callback' }).toString(),
  });

describe('request limits outside inference', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway('management-limits.yaml');
  });
  afterAll(async () => {
    await gw?.close();
  });

  async function settings(key: string, address: string) {
    const response = await fetch(`${gw.url}/v1/settings`, { headers: { authorization: `Bearer ${key}`, 'x-forwarded-for': address } });
    return { status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) as { error?: { code: string } } };
  }

  it('limits an account wherever it calls from, and leaves other accounts alone', async () => {
    for (let i = 0; i < 5; i++) expect((await settings(KEYS.alice, '10.9.0.1')).status).toBe(200);
    const refused = await settings(KEYS.alice, '10.9.0.1');
    expect(refused.status).toBe(429);
    expect(refused.body.error?.code).toBe('rate_limit_exceeded');
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    expect((await settings(KEYS.alice, '10.9.0.2')).status).toBe(429);
    expect((await settings(KEYS.bob, '10.9.0.2')).status).toBe(200);
  });

  it('limits an address across accounts', async () => {
    for (let i = 0; i < 3; i++) expect((await settings(KEYS.bob, '10.9.1.1')).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await settings(KEYS.carol, '10.9.1.1')).status).toBe(200);
    expect((await settings(KEYS.carol, '10.9.1.1')).status).toBe(429);
    expect((await settings(KEYS.carol, '10.9.1.2')).status).toBe(200);
  });

  it('does not limit the master key', async () => {
    for (let i = 0; i < 8; i++) expect((await settings(MASTER_KEY, '10.9.2.1')).status).toBe(200);
  });

  it('limits the OAuth endpoints per address, in the OAuth error form', async () => {
    const token = (address: string) => tokenRequest(gw.url, address);
    for (let i = 0; i < 4; i++) expect((await token('10.9.3.1')).status).toBe(400);
    const refused = await token('10.9.3.1');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ error: 'temporarily_unavailable' });
    expect((await token('10.9.3.2')).status).toBe(400);
    // The sign-in pages answer a page.
    const page = await fetch(`${gw.url}/oauth/interaction/unknown`, { headers: { 'x-forwarded-for': '10.9.3.1' } });
    expect(page.status).toBe(429);
    expect(page.headers.get('content-type')).toContain('text/html');
  });

  it('keeps the management and OAuth budgets apart: a spent one leaves the other whole, both ways', async () => {
    const discovery = (address: string) => fetch(`${gw.url}/.well-known/openid-configuration`, { headers: { 'x-forwarded-for': address } });
    // Management spent from one address...
    for (let i = 0; i < 5; i++) expect((await settings(KEYS.dan, '10.9.4.1')).status).toBe(200);
    expect((await settings(KEYS.dan, '10.9.4.1')).status).toBe(429);
    // ...the OAuth endpoints answer everyone behind it as before.
    expect((await tokenRequest(gw.url, '10.9.4.1')).status).toBe(400);
    expect((await discovery('10.9.4.1')).status).toBe(200);

    // OAuth spent from another address...
    for (let i = 0; i < 4; i++) expect((await discovery('10.9.5.1')).status).toBe(200);
    expect((await tokenRequest(gw.url, '10.9.5.1')).status).toBe(429);
    // ...the management API still answers from it.
    expect((await settings(KEYS.eve, '10.9.5.1')).status).toBe(200);
  });
});
