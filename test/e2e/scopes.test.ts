/**
 * Every authenticated route checks its OAuth scope (src/auth/route-scopes.ts, README "Scopes"):
 * an admin account's token from the authorization-code flow that lacks a route's scope gets 403
 * `insufficient_scope` there, and the same route with a token lacking only some other scope does
 * not. Admin tokens, so the role check never answers first; the gateway refusing to start with an
 * unscoped route is what makes the table complete.
 *
 * A key an OAuth token creates holds the token's scopes, route by route, so a token cannot escape
 * its scopes by minting a key; a scoped credential never gives a key more than it holds, nor
 * manages a key that can do more than itself (src/features/keys/scopes.ts).
 */
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTE_SCOPES } from '../../src/auth/route-scopes.ts';
import { PLATFORM_SCOPES } from '../../src/auth/scopes.ts';
import gatewaySchema from '../../schemas/gateway.schema.json' with { type: 'json' };
import { freePort } from '../_process.ts';
import { api, MASTER_KEY, startMockUpstream, startTestGateway, type MockUpstream, type TestGateway } from '../_setup.ts';
import { accessTokenFor, ALICE, bearer, ROOT } from '../oauth-browser.ts';

const ALL_SCOPES = Object.keys(PLATFORM_SCOPES);
/** alice's unscoped key, declared in the fixture. */
const ALICE_KEY = 'sk-bf-alice-unscoped-00000000000000000000000';

/** Bodies that pass validation, so that only the scope can refuse (inference validates first). */
const BODIES: Record<string, unknown> = {
  'POST /api/v1/chat/completions': { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
  'POST /api/v1/responses': { model: 'gpt-4o-mini', input: 'hi' },
  'POST /api/v1/embeddings': { model: 'gpt-4o-mini', input: 'hi' },
  'POST /api/v1beta/models/:model': { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
  'POST /api/v1/messages': { model: 'gpt-4o-mini', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] },
  'POST /api/v1/messages/count_tokens': { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
};

/** Paths whose parameters are not a plain id: generateContent names its method after the model. */
const PATHS: Record<string, string> = { 'POST /api/v1beta/models/:model': '/api/v1beta/models/gpt-4o-mini:generateContent' };

/**
 * An error's code: the OpenAI shape's `code`; Google's ErrorInfo `reason` (`code` is the HTTP
 * status there); the Messages API's shape has none, so its scope refusal is read from the message.
 */
function errorCode(body: any): string | undefined {
  if (body?.type === 'error') return /lacks the scope/.test(body.error?.message ?? '') ? 'insufficient_scope' : undefined;
  const code = body?.error?.code;
  return typeof code === 'string' ? code : body?.error?.details?.find((detail: { reason?: string }) => detail.reason)?.reason;
}

let upstream: MockUpstream;
let gw: TestGateway & { base: string };

beforeAll(async () => {
  upstream = await startMockUpstream();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const started = await startTestGateway('scopes.yaml', { PORT: String(port), GATEWAY_BASE_URL: base, MOCK_URL: `${upstream.url}/v1` });
  gw = Object.assign(started, { base });
}, 60_000);
afterAll(async () => {
  await gw?.close();
  await upstream?.close();
});

/** `"<METHOD> <path>"` of the route table called with `credential`: its status and error code. */
async function call(route: string, credential: string) {
  const [method, path] = route.split(' ') as [string, string];
  const body = method === 'GET' || method === 'DELETE' ? undefined : JSON.stringify(BODIES[route] ?? {});
  const response = await fetch(`${gw.base}${PATHS[route] ?? path.replaceAll(/:\w+/g, 'unknown-id')}`, {
    method,
    headers: { ...bearer(credential), 'content-type': 'application/json' },
    body,
  });
  const text = await response.text();
  return { status: response.status, code: text.startsWith('{') ? errorCode(JSON.parse(text)) : undefined };
}

const keys = (method: string, path: string, body: unknown, credential: string) => api({ url: gw.base }, method, path, body, credential);

/** The stored item of key `id` in gateway.yaml. */
async function storedKey(id: string): Promise<Record<string, unknown>> {
  const config = parse(await readFile(gw.configFile, 'utf8')) as { keys: Array<Record<string, unknown>> };
  return config.keys.find((key) => key.id === id)!;
}

const SCOPE_EXCEEDED = { error: { message: expect.any(String), type: 'permission_error', param: null, code: 'scope_exceeded' } };

describe('OAuth scopes on every route', () => {
  /** scope → an admin token with every platform scope but that one. */
  const lacking = new Map<string, string>();

  beforeAll(async () => {
    for (const scope of ALL_SCOPES) {
      lacking.set(scope, await accessTokenFor(gw.base, ALL_SCOPES.filter((s) => s !== scope).join(' '), ROOT));
    }
  }, 60_000);

  it('offers no scope that guards nothing', () => {
    expect(new Set(ROUTE_SCOPES.values())).toEqual(new Set(ALL_SCOPES));
  });

  it('a key may hold exactly the platform scopes (gateway.yaml schema)', () => {
    expect(gatewaySchema.$defs.key.properties.scopes.items.enum).toEqual(ALL_SCOPES);
  });

  it.each([
    ['background: true', { background: true }],
    ['previous_response_id', { previous_response_id: 'resp_unknown' }],
  ])('POST /api/v1/responses with %s needs write:api before it queues or reads anything', async (_, extra) => {
    const response = await fetch(`${gw.base}/api/v1/responses`, {
      method: 'POST',
      headers: { ...bearer(lacking.get('write:api')!), 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', input: 'hi', ...extra }),
    });
    expect(response.status).toBe(403);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('insufficient_scope');
  });

  it.each([...ROUTE_SCOPES])('%s needs %s', async (route, scope) => {
    const refused = await call(route, lacking.get(scope)!);
    expect(refused).toEqual({ status: 403, code: 'insufficient_scope' });
    const other = ALL_SCOPES.find((s) => s !== scope)!;
    const passed = await call(route, lacking.get(other)!);
    expect(passed.code).not.toBe('insufficient_scope');
  });
});

describe('API keys created by an OAuth token hold its scopes', () => {
  /** alice's token with only `write:api` (the audit's), and one with every platform scope (as the console's). */
  let writeOnly: string;
  let everything: string;
  /** The key `writeOnly` mints (as the audit did), and the answer to that create. */
  let minted: { id: string; key: string };
  let created: Awaited<ReturnType<typeof keys>>;

  beforeAll(async () => {
    writeOnly = await accessTokenFor(gw.base, 'write:api', ALICE);
    everything = await accessTokenFor(gw.base, ALL_SCOPES.join(' '), ALICE);
    created = await keys('POST', '/v1/api-keys', { name: 'minted' }, writeOnly);
    minted = { id: created.body.id, key: created.body.key };
  }, 60_000);

  it('a write:api token mints a key holding write:api only: in the answer, the list and gateway.yaml', async () => {
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ object: 'api_key', name: 'minted', account_id: 'alice', scopes: ['write:api'] });
    expect((await storedKey(minted.id)).scopes).toEqual(['write:api']);
    const listed = await keys('GET', '/v1/api-keys?account_id=alice', undefined, MASTER_KEY);
    expect(Object.fromEntries(listed.body.data.map((k: { id: string; scopes: unknown }) => [k.id, k.scopes]))).toEqual({ 'alice-key': null, [minted.id]: ['write:api'] });
  });

  it('the key is refused (403 insufficient_scope) wherever the token is, and passes wherever the token does', async () => {
    for (const route of ['GET /v1/statistics/cost', 'GET /v1/statistics/export', 'GET /v1/settings', 'PUT /v1/settings', 'GET /v1/security/status', 'GET /v1/logs', 'GET /api/v1/models']) {
      expect(await call(route, writeOnly), route).toEqual({ status: 403, code: 'insufficient_scope' });
      expect(await call(route, minted.key), route).toEqual({ status: 403, code: 'insufficient_scope' });
    }
    const differ: string[] = [];
    for (const route of ROUTE_SCOPES.keys()) {
      const [byToken, byKey] = [await call(route, writeOnly), await call(route, minted.key)];
      if ((byToken.code === 'insufficient_scope') !== (byKey.code === 'insufficient_scope')) differ.push(`${route}: token ${byToken.status}, key ${byKey.status} ${byKey.code}`);
    }
    expect(differ).toEqual([]);
    // What write:api allows, the key does: a completion, and a key of its own (as limited).
    expect(await call('POST /api/v1/chat/completions', minted.key)).toEqual({ status: 200, code: undefined });
    const child = await keys('POST', '/v1/api-keys', { name: 'child' }, minted.key);
    expect(child.status).toBe(201);
    expect(child.body.scopes).toEqual(['write:api']);
    expect(await call('GET /v1/settings', child.body.key)).toEqual({ status: 403, code: 'insufficient_scope' });
  });

  it('a scoped credential cannot give a key more scopes than it holds, nor none (403 scope_exceeded)', async () => {
    for (const [body, credential] of [
      [{ name: 'wider', scopes: ['write:api', 'read:billing'] }, writeOnly],
      [{ name: 'unscoped', scopes: null }, writeOnly],
      [{ name: 'wider', scopes: ['read:user'] }, minted.key],
    ] as const) {
      const refused = await keys('POST', '/v1/api-keys', body, credential);
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual(SCOPE_EXCEEDED);
    }
    // Nor lift a key's scopes through PUT, the key's own or the token's.
    for (const [body, credential] of [
      [{ scopes: null }, writeOnly],
      [{ scopes: ['write:api', 'read:api'] }, writeOnly],
      [{ scopes: null }, minted.key],
      [{ name: 'renamed', scopes: ['write:api', 'write:user'] }, minted.key],
    ] as const) {
      const refused = await keys('PUT', `/v1/api-keys/${minted.id}`, body, credential);
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual(SCOPE_EXCEEDED);
    }
    expect((await keys('GET', `/v1/api-keys/${minted.id}`, undefined, MASTER_KEY)).body).toMatchObject({ name: 'minted', scopes: ['write:api'] });
    expect((await storedKey(minted.id)).scopes).toEqual(['write:api']);
    // Fewer is fine: a key for reading only, which then cannot spend.
    const reader = await keys('POST', '/v1/api-keys', { name: 'reader', scopes: ['read:api'] }, everything);
    expect(reader.status).toBe(201);
    expect(reader.body.scopes).toEqual(['read:api']);
    expect((await call('GET /v1/api-keys', reader.body.key)).status).toBe(200);
    expect(await call('POST /api/v1/chat/completions', reader.body.key)).toEqual({ status: 403, code: 'insufficient_scope' });
    // A value that is no scope is a 400 naming the field, never a 403.
    const unknown = await keys('POST', '/v1/api-keys', { name: 'x', scopes: ['write:api', 'admin'] }, writeOnly);
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.param).toMatch(/^scopes/);
  });

  it('rotate keeps the scopes: the new secret is as limited as the old one', async () => {
    const rotated = await keys('POST', `/v1/api-keys/${minted.id}/rotate`, undefined, writeOnly);
    expect(rotated.status).toBe(200);
    expect(rotated.body.scopes).toEqual(['write:api']);
    expect(await call('GET /v1/statistics/cost', minted.key)).toEqual({ status: 401, code: 'invalid_api_key' });
    expect(await call('GET /v1/statistics/cost', rotated.body.key)).toEqual({ status: 403, code: 'insufficient_scope' });
    expect((await storedKey(minted.id)).scopes).toEqual(['write:api']);
    // The key may rotate itself: it stays within its own scopes.
    const again = await keys('POST', `/v1/api-keys/${minted.id}/rotate`, undefined, rotated.body.key);
    expect(again.status).toBe(200);
    expect(again.body.scopes).toEqual(['write:api']);
    minted.key = again.body.key;
  });

  it('a scoped credential cannot change, rotate or delete a sibling key that can do more (403 scope_exceeded)', async () => {
    for (const credential of [writeOnly, minted.key]) {
      for (const [method, path, body] of [
        ['POST', '/v1/api-keys/alice-key/rotate', undefined],
        ['PUT', '/v1/api-keys/alice-key', { name: 'taken over' }],
        ['PUT', '/v1/api-keys/alice-key', { status: 'inactive' }],
        ['DELETE', '/v1/api-keys/alice-key', undefined],
      ] as const) {
        const refused = await keys(method, path, body, credential);
        expect(refused.status, `${method} ${path}`).toBe(403);
        expect(refused.body).toEqual(SCOPE_EXCEEDED);
      }
    }
    expect((await keys('GET', '/v1/api-keys/alice-key', undefined, ALICE_KEY)).body).toMatchObject({ name: "Alice's own key", status: 'active', scopes: null });
    expect((await call('GET /v1/statistics/cost', ALICE_KEY)).status).toBe(200);
  });

  it('a token with every platform scope, as the console signs in with, manages every key of the account', async () => {
    const sibling = await keys('POST', '/v1/api-keys', { name: 'unscoped sibling', account_id: 'alice' }, MASTER_KEY);
    expect(sibling.body.scopes).toBeNull();
    expect((await keys('PUT', `/v1/api-keys/${sibling.body.id}`, { name: 'renamed' }, everything)).status).toBe(200);
    const rotated = await keys('POST', `/v1/api-keys/${sibling.body.id}/rotate`, undefined, everything);
    expect(rotated.status).toBe(200);
    expect(rotated.body.scopes).toBeNull();
    expect((await keys('DELETE', `/v1/api-keys/${sibling.body.id}`, undefined, everything)).status).toBe(200);
    // What it creates holds its platform scopes (not openid), so it can do what the console does.
    const created = await keys('POST', '/v1/api-keys', { name: 'from the console' }, everything);
    expect(created.body.scopes).toEqual(ALL_SCOPES);
    expect((await call('GET /v1/statistics/cost', created.body.key)).status).toBe(200);
  });
});
