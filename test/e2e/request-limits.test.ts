/**
 * The management API is limited per account and per client address, the OAuth endpoints per
 * client address (`management.rate_limit`, here 5 a minute), with 429 and Retry-After; the master
 * key is not limited. The test is the fixture's trusted proxy, so X-Forwarded-For picks the address.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MASTER_KEY, startTestGateway, type TestGateway } from '../_setup.ts';

const KEYS = {
  alice: 'sk-bf-signin-alice-000000000000000000000000',
  bob: 'sk-bf-sec-bob-00000000000000000000000000000',
  carol: 'sk-bf-signin-carol-000000000000000000000000',
};

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
    const token = (address: string) =>
      fetch(`${gw.url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': address },
        body: new URLSearchParams({ grant_type: 'authorization_code', code: 'nope', client_id: 'dashboard', client_secret: 'dashboard-secret-0123456789', redirect_uri: 'http://127.0.0.1:5999/callback' }).toString(),
      });
    for (let i = 0; i < 5; i++) expect((await token('10.9.3.1')).status).toBe(400);
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
});
