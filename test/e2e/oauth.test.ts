/**
 * The OAuth 2.0 authorization server end to end: a user agent driven with fetch (manual
 * redirects, a cookie jar, real form posts) through login and consent, then the token endpoint,
 * the access token on management routes, refresh rotation, discovery and PKCE.
 */
import { mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../_process.ts';
import { startTestGateway, type TestGateway } from '../_setup.ts';
import { ALICE, authorize, authorizeUrl, bearer, Browser, codeFor, DASHBOARD, READER, REDIRECT, ROOT, startOAuthGateway, tokenRequest } from '../oauth-browser.ts';

/** A GET with the headers as given, Host included (fetch would set its own). */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body }));
    }).on('error', reject);
  });
}

describe('OAuth authorization server (memory store)', () => {
  let gw: TestGateway & { base: string };
  beforeAll(async () => {
    gw = await startOAuthGateway();
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('publishes the discovery document with the base URL as issuer and /oauth endpoints', async () => {
    const response = await fetch(`${gw.base}/.well-known/openid-configuration`);
    expect(response.status).toBe(200);
    const doc = (await response.json()) as Record<string, unknown>;
    expect(doc.issuer).toBe(gw.base);
    expect(doc.authorization_endpoint).toBe(`${gw.base}/oauth/authorize`);
    expect(doc.token_endpoint).toBe(`${gw.base}/oauth/token`);
    expect(doc.code_challenge_methods_supported).toEqual(['S256']);
    expect(doc.scopes_supported).toEqual(expect.arrayContaining(['read:user', 'write:user', 'read:api', 'write:api', 'read:billing']));
    // Nothing to top up or subscribe to: write:billing would guard nothing, so it is not offered.
    expect(doc.scopes_supported).not.toContain('write:billing');
    expect(doc.token_endpoint_auth_methods_supported).toEqual(expect.arrayContaining(['client_secret_basic', 'client_secret_post']));
  });

  it('publishes every URL under the issuer, whatever Host or X-Forwarded-* the request names, and lets discovery and keys be cached', async () => {
    const forged = { host: 'evil.example', 'x-forwarded-host': 'evil2.example', 'x-forwarded-proto': 'https' };
    const discovery = await rawGet(`${gw.base}/.well-known/openid-configuration`, forged);
    expect(discovery.status).toBe(200);
    const doc = JSON.parse(discovery.body) as Record<string, unknown>;
    const urls = Object.entries(doc).filter((entry): entry is [string, string] => typeof entry[1] === 'string' && /^\w+:\/\//.test(entry[1]));
    expect(urls.map(([name]) => name)).toEqual(expect.arrayContaining(['issuer', 'authorization_endpoint', 'token_endpoint', 'jwks_uri', 'userinfo_endpoint']));
    for (const [name, url] of urls) expect(new URL(url).origin, name).toBe(gw.base);
    expect(doc.token_endpoint).toBe(`${gw.base}/oauth/token`);
    expect(discovery.headers['cache-control']).toBe('public, max-age=3600');
    const jwks = await rawGet(`${gw.base}/oauth/jwks`, forged);
    expect(jwks.status).toBe(200);
    expect(jwks.headers['cache-control']).toBe('public, max-age=600');
    // The way to the sign-in page stays on the gateway too.
    const start = await rawGet(authorizeUrl(gw.base, { scope: 'read:user', state: 'h' }), forged);
    expect(start.status).toBe(303);
    expect(new URL(String(start.headers.location), gw.base).origin).toBe(gw.base);
  });

  it.each(['read:api write:billing', 'write:billing', 'read:api no-such-scope'])('refuses scope=%s at authorize with invalid_scope, redirected to the client', async (scope) => {
    const response = await new Browser().request(authorizeUrl(gw.base, { scope, state: 'sc' }));
    expect(response.status).toBe(303);
    const location = new URL(response.headers.get('location')!, gw.base);
    expect(location.origin + location.pathname).toBe(REDIRECT);
    expect(location.searchParams.get('error')).toBe('invalid_scope');
    expect(location.searchParams.get('state')).toBe('sc');
    expect(location.searchParams.get('code')).toBeNull();
  });

  it('answers a refused scope with an error page, not a redirect, when the redirect_uri is not registered', async () => {
    const url = `${gw.base}/oauth/authorize?${new URLSearchParams({ client_id: DASHBOARD.id, redirect_uri: 'https://evil.example/cb', response_type: 'code', scope: 'write:billing', state: 'x' })}`;
    const response = await new Browser().request(url);
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
  });

  it('keeps the signing keys in the data dir, readable by the owner only', async () => {
    const info = await stat(join(gw.dir, 'data', 'oauth-jwks.json'));
    expect(info.mode & 0o777).toBe(0o600);
    const jwks = (await (await fetch(`${gw.base}/oauth/jwks`)).json()) as { keys: Array<Record<string, unknown>> };
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0].d).toBeUndefined();
  });

  it('runs login and consent, redirects with code and state, and exchanges the code (client_secret_post)', async () => {
    const state = 'st-123';
    const flow = await authorize(authorizeUrl(gw.base, { scope: 'read:user read:api', state }), ALICE);
    const login = flow.browser.pages.find((p) => /name="password"/.test(p.body))!;
    expect(login.body).toMatch(/<input[^>]+name="email"/);
    const consent = flow.browser.pages.find((p) => /value="consent"/.test(p.body))!;
    expect(consent.body).toContain('read:user');
    expect(consent.body).toContain('read:api');
    expect(flow.callback).not.toBeNull();
    expect(flow.callback!.origin + flow.callback!.pathname).toBe(REDIRECT);
    expect(flow.callback!.searchParams.get('state')).toBe(state);
    const code = flow.callback!.searchParams.get('code')!;
    expect(code).toMatch(/^[\w-]{20,}$/);

    const token = await tokenRequest(gw.base, {
      grant_type: 'authorization_code',
      code,
      client_id: DASHBOARD.id,
      client_secret: DASHBOARD.secret,
      redirect_uri: REDIRECT,
    });
    expect(token.status).toBe(200);
    expect(token.body).toMatchObject({ token_type: 'Bearer', scope: 'read:user read:api' });
    expect(typeof token.body.access_token).toBe('string');
    expect(typeof token.body.refresh_token).toBe('string');
    expect(Number.isInteger(token.body.expires_in)).toBe(true);
    expect(token.body.expires_in as number).toBeGreaterThan(0);

    // A code is single-use.
    const again = await tokenRequest(gw.base, { grant_type: 'authorization_code', code, client_id: DASHBOARD.id, client_secret: DASHBOARD.secret, redirect_uri: REDIRECT });
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('invalid_grant');
  });

  it('exchanges a code with client_secret_basic', async () => {
    const code = await codeFor(gw.base, 'read:user');
    const token = await tokenRequest(gw.base, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT }, DASHBOARD);
    expect(token.status).toBe(200);
    expect(token.body.scope).toBe('read:user');
    expect(typeof token.body.refresh_token).toBe('string');
  });

  it('refuses a wrong client secret with 401 invalid_client', async () => {
    const code = await codeFor(gw.base, 'read:user');
    const post = await tokenRequest(gw.base, { grant_type: 'authorization_code', code, client_id: DASHBOARD.id, client_secret: 'wrong', redirect_uri: REDIRECT });
    expect(post.status).toBe(401);
    expect(post.body.error).toBe('invalid_client');
    const basic = await tokenRequest(gw.base, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT }, { id: DASHBOARD.id, secret: 'wrong' });
    expect(basic.status).toBe(401);
    expect(basic.body.error).toBe('invalid_client');
  });

  it('accepts the access token as Bearer on management routes and enforces scopes', async () => {
    const code = await codeFor(gw.base, 'read:user read:api');
    const token = await tokenRequest(gw.base, { grant_type: 'authorization_code', code, client_id: DASHBOARD.id, client_secret: DASHBOARD.secret, redirect_uri: REDIRECT });
    const access = token.body.access_token as string;

    const status = await fetch(`${gw.base}/v1/security/status`, { headers: bearer(access) });
    expect(status.status).toBe(200);
    expect(await status.json()).toMatchObject({ two_factor_enabled: false });

    const system = await fetch(`${gw.base}/v1/system/status`, { headers: bearer(access) });
    expect(system.status).toBe(200);

    // write:user was not granted.
    const send = await fetch(`${gw.base}/v1/security/send-code`, {
      method: 'POST',
      headers: { ...bearer(access), 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'totp' }),
    });
    expect(send.status).toBe(403);
    expect(((await send.json()) as { error: { code: string } }).error.code).toBe('insufficient_scope');

    const unknown = await fetch(`${gw.base}/v1/security/status`, { headers: bearer('not-a-real-token-000000000000000000000000000') });
    expect(unknown.status).toBe(401);
  });

  it("shows the pages in the browser's language before sign-in, then in the account's", async () => {
    const url = authorizeUrl(gw.base, { scope: 'read:user', state: 'lang' });
    const chinese = new Browser();
    let response = await chinese.request(url, { headers: { 'accept-language': 'fr;q=1, zh-CN;q=0.8, en;q=0.5' } });
    while (response.status >= 300 && response.status < 400) response = await chinese.request(new URL(response.headers.get('location')!, url).href, { headers: { 'accept-language': 'zh-CN' } });
    const login = await response.text();
    expect(login).toContain('<html lang="zh-CN">');
    expect(login).toContain('<h1>登录</h1>');
    expect(login).toContain('<label for="password">密码</label>');
    const english = await authorize(url, ALICE);
    expect(english.browser.pages[0].body).toContain('<h1>Sign in</h1>');
    expect(english.browser.pages.at(-1)!.body).toContain('<h1>Authorize access</h1>');

    // The account chooses Chinese: its consent page (shown once it is signed in) follows.
    const code = await codeFor(gw.base, 'write:user');
    const token = await tokenRequest(gw.base, { grant_type: 'authorization_code', code, client_id: DASHBOARD.id, client_secret: DASHBOARD.secret, redirect_uri: REDIRECT });
    const put = await fetch(`${gw.base}/v1/settings`, {
      method: 'PUT',
      headers: { ...bearer(token.body.access_token as string), 'content-type': 'application/json' },
      body: JSON.stringify({ account: { language: 'zh-CN' } }),
    });
    expect(put.status).toBe(200);
    const flow = await authorize(authorizeUrl(gw.base, { scope: 'read:billing', state: 'lang2' }), ALICE);
    const consent = flow.browser.pages.find((p) => /value="consent"/.test(p.body))!.body;
    expect(consent).toContain('<h1>授权访问</h1>');
    expect(consent).toContain('<code>read:billing</code>: 读取您的账单信息（费用、导出）');
    expect(consent).toContain('请求访问您的账户 <strong>alice@example.com</strong>');
    await fetch(`${gw.base}/v1/settings`, {
      method: 'PUT',
      headers: { ...bearer(token.body.access_token as string), 'content-type': 'application/json' },
      body: JSON.stringify({ account: { language: 'en' } }),
    });
  });

  it('gates the management API by the token\'s scopes (CONTRACT "Identity")', async () => {
    const code = await codeFor(gw.base, 'read:user read:api');
    const token = await tokenRequest(gw.base, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT }, DASHBOARD);
    const headers = { ...bearer(token.body.access_token as string), 'content-type': 'application/json' };
    expect((await fetch(`${gw.base}/v1/settings`, { headers })).status).toBe(200);
    expect((await fetch(`${gw.base}/v1/api-keys`, { headers })).status).toBe(200);
    const refused: Array<[string, string, string]> = [
      ['POST', '/v1/api-keys', 'write:api'],
      ['PUT', '/v1/settings', 'write:user'],
      ['GET', '/v1/statistics/cost', 'read:billing'],
      ['GET', '/v1/statistics/export?format=csv', 'read:billing'],
    ];
    for (const [method, path, scope] of refused) {
      const response = await fetch(`${gw.base}${path}`, { method, headers, body: method === 'GET' ? undefined : JSON.stringify({ name: 'x' }) });
      expect(response.status, path).toBe(403);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code, path).toBe('insufficient_scope');
      expect(body.error.message, path).toContain(scope);
    }
  });

  it('gives an admin account\'s token admin rights and a member\'s token none', async () => {
    const rootCode = await codeFor(gw.base, 'read:api', ROOT);
    const rootToken = await tokenRequest(gw.base, { grant_type: 'authorization_code', code: rootCode, redirect_uri: REDIRECT }, DASHBOARD);
    const aliceCode = await codeFor(gw.base, 'read:user');
    const aliceToken = await tokenRequest(gw.base, { grant_type: 'authorization_code', code: aliceCode, redirect_uri: REDIRECT }, DASHBOARD);
    const asRoot = await fetch(`${gw.base}/v1/system/config`, { headers: bearer(rootToken.body.access_token as string) });
    const asAlice = await fetch(`${gw.base}/v1/admin/providers`, { headers: bearer(aliceToken.body.access_token as string) });
    expect(asRoot.status).toBe(200);
    expect(asAlice.status).toBe(403);
  });

  it('rotates the refresh token: the refresh grant answers a new pair and the old one is refused', async () => {
    const code = await codeFor(gw.base, 'read:user write:user');
    const first = await tokenRequest(gw.base, { grant_type: 'authorization_code', code, client_id: DASHBOARD.id, client_secret: DASHBOARD.secret, redirect_uri: REDIRECT });
    const oldRefresh = first.body.refresh_token as string;

    const second = await tokenRequest(gw.base, { grant_type: 'refresh_token', refresh_token: oldRefresh, client_id: DASHBOARD.id, client_secret: DASHBOARD.secret });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ token_type: 'Bearer', scope: 'read:user write:user' });
    expect(second.body.refresh_token).not.toBe(oldRefresh);
    expect(second.body.access_token).not.toBe(first.body.access_token);
    const works = await fetch(`${gw.base}/v1/security/status`, { headers: bearer(second.body.access_token as string) });
    expect(works.status).toBe(200);

    const reused = await tokenRequest(gw.base, { grant_type: 'refresh_token', refresh_token: oldRefresh, client_id: DASHBOARD.id, client_secret: DASHBOARD.secret });
    expect(reused.status).toBe(400);
    expect(reused.body.error).toBe('invalid_grant');
  });

  it('shows the login form again with an error after a wrong password, then lets the user in', async () => {
    const browser = new Browser();
    const start = await browser.request(authorizeUrl(gw.base, { scope: 'read:user', state: 's1' }));
    expect(start.status).toBe(303);
    const formUrl = new URL(start.headers.get('location')!, gw.base).href;
    expect(formUrl).toMatch(/\/oauth\/interaction\/[\w-]+$/);
    expect((await browser.request(formUrl)).status).toBe(200);

    const wrong = await browser.postForm(formUrl, { action: 'login', email: ALICE.email, password: 'nope' });
    expect(wrong.status).toBe(401);
    const body = await wrong.text();
    expect(body).toContain('Wrong email or password.');
    expect(body).toMatch(/<input[^>]+name="password"/);

    const unknownUser = await browser.postForm(formUrl, { action: 'login', email: 'nobody@example.com', password: 'nope' });
    expect(unknownUser.status).toBe(401);

    const flow = await authorize(formUrl, ALICE, browser);
    expect(flow.callback?.searchParams.get('state')).toBe('s1');
    expect(flow.callback?.searchParams.get('code')).toBeTruthy();
  });

  it('answers an unknown interaction with an error page, not a crash', async () => {
    const response = await fetch(`${gw.base}/oauth/interaction/does-not-exist`);
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toContain('text/html');
  });

  it('redirects with access_denied when the user denies consent', async () => {
    const browser = new Browser();
    let response = await browser.request(authorizeUrl(gw.base, { scope: 'read:user', state: 'deny' }));
    let url = '';
    for (let i = 0; i < 8 && response.status !== 200; i++) {
      url = new URL(response.headers.get('location')!, gw.base).href;
      response = await browser.request(url);
    }
    expect(await response.text()).toMatch(/name="password"/);
    response = await browser.postForm(url, { action: 'login', ...ALICE });
    for (let i = 0; i < 8 && response.status !== 200; i++) {
      url = new URL(response.headers.get('location')!, gw.base).href;
      response = await browser.request(url);
    }
    expect(await response.text()).toContain('value="consent"');
    response = await browser.postForm(url, { action: 'abort' });
    for (let i = 0; i < 8; i++) {
      const location = new URL(response.headers.get('location')!, gw.base);
      if (location.href.startsWith(REDIRECT)) {
        expect(location.searchParams.get('error')).toBe('access_denied');
        expect(location.searchParams.get('state')).toBe('deny');
        return;
      }
      response = await browser.request(location.href);
    }
    throw new Error('no redirect to the client');
  });

  it('refuses a scope outside the client\'s list', async () => {
    const browser = new Browser();
    const response = await browser.request(
      `${gw.base}/oauth/authorize?${new URLSearchParams({ client_id: READER.id, redirect_uri: REDIRECT, response_type: 'code', scope: 'write:api', state: 'x' })}`,
    );
    expect(response.status).toBe(303);
    const location = new URL(response.headers.get('location')!);
    expect(location.href.startsWith(REDIRECT)).toBe(true);
    expect(location.searchParams.get('error')).toBe('invalid_scope');
  });

  it('runs a PKCE S256 flow and refuses a wrong verifier', async () => {
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const pkce = { code_challenge: challenge, code_challenge_method: 'S256' };
    const bad = await codeFor(gw.base, 'read:user', ALICE, pkce);
    const refused = await tokenRequest(gw.base, { grant_type: 'authorization_code', code: bad, redirect_uri: REDIRECT, code_verifier: randomBytes(32).toString('base64url') }, DASHBOARD);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_grant');

    const good = await codeFor(gw.base, 'read:user', ALICE, pkce);
    const token = await tokenRequest(gw.base, { grant_type: 'authorization_code', code: good, redirect_uri: REDIRECT, code_verifier: verifier }, DASHBOARD);
    expect(token.status).toBe(200);
    expect(token.body.scope).toBe('read:user');
  });

  it('works with openid-client (discovery, PKCE, code grant, refresh)', async () => {
    const config = await oidc.discovery(new URL(gw.base), DASHBOARD.id, DASHBOARD.secret, oidc.ClientSecretPost(DASHBOARD.secret), {
      execute: [oidc.allowInsecureRequests],
    });
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'read:api write:api',
      state,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const flow = await authorize(url.href, ALICE);
    expect(flow.callback).not.toBeNull();
    const tokens = await oidc.authorizationCodeGrant(config, flow.callback!, { pkceCodeVerifier: verifier, expectedState: state });
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.scope).toBe('read:api write:api');
    expect(tokens.refresh_token).toBeTruthy();
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    // read:user was not asked for.
    const status = await fetch(`${gw.base}/v1/security/status`, { headers: bearer(refreshed.access_token) });
    expect(status.status).toBe(403);
  });
});

describe('a client removed from gateway.yaml by a hot reload', () => {
  let gw: TestGateway & { base: string };
  beforeAll(async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    gw = Object.assign(await startTestGateway('oauth.yaml', { PORT: String(port), GATEWAY_BASE_URL: base }, { watch: true }), { base });
    await gw.gateway.config.watcher?.ready;
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('loses its access tokens, its refresh tokens and new authorizations at once; the other clients keep theirs', async () => {
    const code = await codeFor(gw.base, 'read:user read:api');
    const token = await tokenRequest(gw.base, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT }, DASHBOARD);
    const access = token.body.access_token as string;
    expect((await fetch(`${gw.base}/v1/security/status`, { headers: bearer(access) })).status).toBe(200);
    const readerUrl = `${gw.base}/oauth/authorize?${new URLSearchParams({ client_id: READER.id, redirect_uri: REDIRECT, response_type: 'code', scope: 'read:user', state: 'r' })}`;
    const readerCode = (await authorize(readerUrl, ALICE)).callback!.searchParams.get('code')!;
    const readerToken = await tokenRequest(gw.base, { grant_type: 'authorization_code', code: readerCode, redirect_uri: REDIRECT }, READER);
    expect(readerToken.status).toBe(200);

    const original = await readFile(gw.configFile, 'utf8');
    const edited = original.replace(/    - client_id: dashboard\n(?: {6}.*\n)+/, '');
    expect(edited).not.toContain('dashboard');
    await writeFile(`${gw.configFile}.tmp`, edited);
    await rename(`${gw.configFile}.tmp`, gw.configFile);
    await expect.poll(() => gw.gateway.runtime.current().config.oauth.clients.map((client) => client.client_id), { timeout: 5000 }).toEqual([READER.id]);

    expect((await fetch(`${gw.base}/v1/security/status`, { headers: bearer(access) })).status).toBe(401);
    const refreshed = await tokenRequest(gw.base, { grant_type: 'refresh_token', refresh_token: token.body.refresh_token as string }, DASHBOARD);
    expect(refreshed.status).toBe(400);
    expect(refreshed.body.error).toBe('invalid_grant');
    const again = await new Browser().request(authorizeUrl(gw.base, { scope: 'read:user', state: 'gone' }));
    expect(again.status).toBe(400);
    expect(again.headers.get('location')).toBeNull();

    expect((await fetch(`${gw.base}/v1/security/status`, { headers: bearer(readerToken.body.access_token as string) })).status).toBe(200);
    const readerRefresh = await tokenRequest(gw.base, { grant_type: 'refresh_token', refresh_token: readerToken.body.refresh_token as string }, READER);
    expect(readerRefresh.status).toBe(200);
  });
});

describe('OAuth authorization server on Redis, shared by two instances', () => {
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefix = `gwtest-oauth-${randomBytes(4).toString('hex')}:`;
  let a: TestGateway & { base: string };
  let b: TestGateway & { base: string };
  let dataDir: string;
  let redis: Redis;

  beforeAll(async () => {
    // Instances behind one base URL share the keys directory (like cluster workers) and Redis.
    dataDir = await mkdtemp(join(tmpdir(), 'gw-oauth-keys-'));
    const env = { REDIS_URL: redisUrl, GATEWAY_REDIS_PREFIX: prefix, GATEWAY_DATA_DIR: dataDir };
    a = await startOAuthGateway(env);
    b = await startOAuthGateway({ ...env, GATEWAY_BASE_URL: a.base });
    redis = new Redis(redisUrl);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    if (redis) {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
    }
    await rm(dataDir, { recursive: true, force: true });
  });

  it('authorizes on one instance, exchanges and uses the token on the other', async () => {
    expect(a.gateway.runtime.store.kind).toBe('redis');
    const code = await codeFor(a.base, 'read:user');
    expect((await redis.keys(`${prefix}gw:oidc:AuthorizationCode:*`)).length).toBeGreaterThan(0);

    const token = await tokenRequest(b.url, { grant_type: 'authorization_code', code, client_id: DASHBOARD.id, client_secret: DASHBOARD.secret, redirect_uri: REDIRECT });
    expect(token.status).toBe(200);
    const onB = await fetch(`${b.url}/v1/security/status`, { headers: bearer(token.body.access_token as string) });
    expect(onB.status).toBe(200);

    const refreshed = await tokenRequest(a.base, { grant_type: 'refresh_token', refresh_token: token.body.refresh_token as string, client_id: DASHBOARD.id, client_secret: DASHBOARD.secret });
    expect(refreshed.status).toBe(200);
    const reused = await tokenRequest(b.url, { grant_type: 'refresh_token', refresh_token: token.body.refresh_token as string, client_id: DASHBOARD.id, client_secret: DASHBOARD.secret });
    expect(reused.status).toBe(400);
    expect(reused.body.error).toBe('invalid_grant');
  });
});
