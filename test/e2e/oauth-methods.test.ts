/**
 * Every OAuth/OIDC path answers a wrong method with 405 in the OAuth error form and an `Allow`
 * header naming what it does answer (never the provider's plain-text "Not Found"), each right
 * method reaches the endpoint, and a path no endpoint serves is our 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../_process.ts';
import { startTestGateway, type TestGateway } from '../_setup.ts';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];

/** Each path and the methods it answers (OPTIONS: the CORS preflight of the endpoints browsers call). */
const ENDPOINTS: Array<[string, string[]]> = [
  ['/oauth/authorize', ['GET', 'HEAD']],
  ['/oauth/authorize/some-uid', ['GET', 'HEAD']],
  ['/oauth/interaction/some-uid', ['GET', 'POST']],
  ['/oauth/token', ['POST', 'OPTIONS']],
  ['/oauth/jwks', ['GET', 'HEAD', 'OPTIONS']],
  ['/oauth/userinfo', ['GET', 'HEAD', 'POST', 'OPTIONS']],
  ['/oauth/token/revocation', ['POST', 'OPTIONS']],
  ['/oauth/par', ['POST', 'OPTIONS']],
  ['/oauth/session/end/confirm', ['POST']],
  ['/.well-known/openid-configuration', ['GET', 'HEAD', 'OPTIONS']],
];

describe('methods of the OAuth endpoints', () => {
  let gw: TestGateway;
  let base: string;
  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    gw = await startTestGateway('oauth.yaml', { PORT: String(port), GATEWAY_BASE_URL: base });
  });
  afterAll(async () => {
    await gw?.close();
  });

  const call = (method: string, path: string) =>
    fetch(`${base}${path}`, { method, headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' } });

  it('answers GET /oauth/token and POST /oauth/jwks with 405 in the OAuth error form, with Allow', async () => {
    const token = await call('GET', '/oauth/token');
    expect(token.status).toBe(405);
    expect(token.headers.get('allow')).toBe('POST, OPTIONS');
    expect(token.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await token.json()).toEqual({ error: 'invalid_request', error_description: 'Method GET is not allowed on /oauth/token; use POST, OPTIONS.' });

    const jwks = await call('POST', '/oauth/jwks');
    expect(jwks.status).toBe(405);
    expect(jwks.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(await jwks.json()).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining('POST') });
  });

  it.each(ENDPOINTS)('%s: each wrong method is 405 with Allow, each right one reaches the endpoint', async (path, allowed) => {
    for (const method of METHODS) {
      const response = await call(method, path);
      const text = await response.text();
      if (allowed.includes(method)) {
        expect([404, 405], `${method} ${path}: ${response.status} ${text}`).not.toContain(response.status);
        continue;
      }
      expect(response.status, `${method} ${path}`).toBe(405);
      expect(response.headers.get('allow'), `${method} ${path}`).toBe(allowed.join(', '));
      if (method !== 'HEAD') expect(JSON.parse(text), `${method} ${path}`).toMatchObject({ error: 'invalid_request' });
    }
  });

  it('answers a path no endpoint serves with our 404, whatever the method (features left off included)', async () => {
    for (const path of ['/oauth/token/introspection', '/oauth/register', '/oauth/device/auth', '/oauth/session/end', '/oauth/nope', '/oauth/token/extra']) {
      for (const method of ['GET', 'POST']) {
        const response = await call(method, path);
        expect(response.status, `${method} ${path}`).toBe(404);
        expect(await response.json(), `${method} ${path}`).toMatchObject({ error: { code: 'route_not_found' } });
      }
    }
  });
});
