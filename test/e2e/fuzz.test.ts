/**
 * The fuzz suite: generated bodies, headers, query strings and paths (fast-check) against every
 * route: inference (chat, responses), management (keys, admin resources), logs, statistics,
 * settings, security, the OAuth token endpoint and the login form. Whatever is sent: no 5xx, no
 * crash, every error in the OpenAI error shape (OAuth endpoints: the OAuth error form), a member
 * never reaches another account's keys or /v1/admin, and a refused write leaves the stored
 * configuration, secrets and settings as they were.
 *
 * The call log: every 2xx inference answer has exactly one row, whatever its strings hold, and the
 * statistics count every row. The call log is the embedded SQLite file here; fuzz-postgres.test.ts
 * runs this same file on PostgreSQL (`FUZZ_STORE=postgres`, see test/fuzz/store.ts).
 *
 * `FUZZ_RUNS` scales the runs per property (default 30, under a minute in all); `npm run fuzz` runs
 * many more. A failure prints the seed and the shrunk input; `FUZZ_SEED` replays a run.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../_process.ts';
import { MASTER_KEY, startMockUpstream, startTestGateway, type MockUpstream, type TestGateway } from '../_setup.ts';
import type { LogService } from '../../src/features/logs/service.ts';
import { BUCKET_MS } from '../../src/features/logs/types.ts';
import { anyJson, anyUnicode, bodyText, headerValue, mutated, nastyStrings, pathSegment, queryString } from '../fuzz/arbitraries.ts';
import { expectGatewayAnswer, expectOAuthAnswer, send, storedFiles, type Answer } from '../fuzz/checks.ts';
import { fuzzStore } from '../fuzz/store.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 30);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
const TIMEOUT = Math.max(60_000, RUNS * 2_000);
const ALICE = 'sk-bf-fuzz-member-0000000000000000000000000000';
const BOB = 'sk-bf-fuzz-other-00000000000000000000000000000';
const CAROL = 'sk-bf-fuzz-carol-00000000000000000000000000000';

const store = fuzzStore();
let upstream: MockUpstream;
let gw: TestGateway;
/** An extra key of alice's, the target of the key-update property (her own key stays usable). */
let aliceSpareKey: string;

const options = (runs = RUNS) => ({ numRuns: runs, seed: SEED, endOnFailure: true });
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const call = (method: string, path: string, key: string | null, body?: string, headers: Record<string, string> = {}): Promise<Answer> =>
  send(`${gw.url}${path}`, {
    method,
    headers: { ...(key ? bearer(key) : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body,
  });

beforeAll(async () => {
  upstream = await startMockUpstream();
  const port = await freePort();
  gw = await startTestGateway('fuzz.yaml', { MOCK_URL: `${upstream.url}/v1`, PORT: String(port), GATEWAY_BASE_URL: `http://127.0.0.1:${port}`, ...store.env });
  const spare = await call('POST', '/v1/api-keys', ALICE, JSON.stringify({ name: 'fuzz target' }));
  aliceSpareKey = JSON.parse(spare.text).id;
});
afterAll(async () => {
  await gw?.close();
  await upstream?.close();
  await store.cleanup();
});

const CHAT = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 };
const RESPONSES = { model: 'gpt-4o-mini', input: 'hi', max_output_tokens: 5 };
const INFERENCE_FIELDS = ['stream', 'fallbacks', 'tools', 'tool_choice', 'temperature', 'top_p', 'n', 'stop', 'user', 'stream_options', 'response_format', 'instructions', 'previous_response_id', 'background', 'store'];

describe('fuzz: inference', () => {
  it('chat and responses: generated bodies never get a 5xx, and errors are in the error shape', { timeout: TIMEOUT }, async () => {
    const endpoint = fc.constantFrom(['/api/v1/chat/completions', CHAT] as const, ['/api/v1/responses', RESPONSES] as const);
    const input = endpoint.chain(([path, base]) => fc.tuple(fc.constant(path), bodyText(fc.oneof({ weight: 4, arbitrary: mutated(base, INFERENCE_FIELDS) }, { weight: 1, arbitrary: anyJson }))));
    await fc.assert(
      fc.asyncProperty(input, async ([path, body]) => {
        expectGatewayAnswer(await call('POST', path, ALICE, body), `POST ${path} ${body.slice(0, 200)}`);
      }),
      options(RUNS * 3),
    );
  });

  it('generated headers (credentials, content types, encodings, anything) never get a 5xx', { timeout: TIMEOUT }, async () => {
    const auth = fc.oneof(
      fc.constant(`Bearer ${ALICE}`), fc.constant(`Bearer ${MASTER_KEY}`), headerValue.map((v) => `Bearer ${v}`), headerValue,
      fc.constant(`Basic ${Buffer.from('a:b').toString('base64')}`), fc.constant(`bearer  ${ALICE}`),
    );
    const extra = fc.dictionary(fc.constantFrom('content-type', 'accept', 'content-encoding', 'x-forwarded-for', 'accept-encoding', 'x-request-id', 'cookie', 'x-fuzz'), headerValue, { maxKeys: 4 });
    const target = fc.constantFrom(['POST', '/api/v1/chat/completions'], ['POST', '/api/v1/responses'], ['GET', '/v1/api-keys'], ['PUT', '/v1/settings'], ['GET', '/api/v1/models']);
    await fc.assert(
      fc.asyncProperty(target, auth, extra, async ([method, path], authorization, headers) => {
        const body = method === 'GET' ? undefined : path === '/v1/settings' ? '{}' : JSON.stringify(path.endsWith('responses') ? RESPONSES : CHAT);
        const answer = await send(`${gw.url}${path}`, { method, headers: { authorization, ...headers }, body });
        expectGatewayAnswer(answer, `${method} ${path} with ${JSON.stringify({ authorization, ...headers })}`);
      }),
      options(RUNS * 2),
    );
  });
});

describe(`fuzz: the call log (${store.kind})`, () => {
  it('every 2xx inference answer has exactly one row, whatever its strings hold (lone surrogates, NUL, every plane)', { timeout: TIMEOUT }, async () => {
    const logs = gw.gateway.runtime.services.logs as LogService;
    expect(logs.store.kind).toBe(store.kind);
    const served: string[] = [];
    const input = fc.tuple(fc.constantFrom('chat', 'responses'), anyUnicode, fc.option(anyUnicode, { nil: undefined }), fc.boolean());
    await fc.assert(
      fc.asyncProperty(input, async ([endpoint, text, user, stream]) => {
        const body = endpoint === 'chat'
          ? { ...CHAT, messages: [{ role: 'user', content: text }], ...(user === undefined ? {} : { user }), stream }
          : { ...RESPONSES, input: text, ...(user === undefined ? {} : { user }), stream };
        const path = endpoint === 'chat' ? '/api/v1/chat/completions' : '/api/v1/responses';
        const answer = await call('POST', path, ALICE, JSON.stringify(body));
        expectGatewayAnswer(answer, `POST ${path} ${JSON.stringify(body)}`);
        if (answer.status >= 200 && answer.status < 300) served.push(answer.headers.get('x-request-id')!);
      }),
      options(RUNS * 2),
    );
    expect(served.length, 'no call was served').toBeGreaterThan(0);
    expect(new Set(served).size).toBe(served.length);
    // A row is queued once its answer ended (the log step's onComplete): wait for each.
    for (const id of served) {
      let row = await logs.store.get(id);
      for (let i = 0; !row && i < 100; i++) {
        await logs.queue.flush().catch(() => {});
        await new Promise((r) => setTimeout(r, 20));
        row = await logs.store.get(id);
      }
      expect(row, `the served call ${id} has no row`).not.toBeNull();
    }
    expect({ refused: logs.queue.refused, dropped: logs.queue.dropped }).toEqual({ refused: 0, dropped: 0 });
    // Every row counts in the statistics (the rollups), this file's other calls included.
    const rows = (await logs.store.list({}, 1, 1)).total;
    const counted = (await logs.store.rollup(0, Date.now() + BUCKET_MS, {}, 'bucket')).reduce((n, r) => n + r.request_count, 0);
    expect(counted).toBe(rows);
  });
});

/** The write routes with a valid body each, and the key that may call them. */
function writes() {
  const provider = { name: 'P', type: 'compat', endpoint: 'http://127.0.0.1:9/v1', models: ['m'], quota_limit: 0, quota_period: 'daily', status: 'active' };
  return [
    { method: 'POST', path: '/v1/api-keys', key: ALICE, base: { name: 'k', status: 'active', permissions: { models: [], rate_limit: 0, quota_limit: 0 } } },
    { method: 'PUT', path: `/v1/api-keys/${aliceSpareKey}`, key: ALICE, base: { name: 'k', permissions: { rate_limit: 1, quota_limit: 5, quota_period: 'weekly' } } },
    { method: 'POST', path: '/v1/admin/providers', key: MASTER_KEY, base: provider },
    { method: 'PUT', path: '/v1/admin/providers/fz-provider', key: MASTER_KEY, base: provider },
    { method: 'POST', path: '/v1/admin/models', key: MASTER_KEY, base: { id: 'm1', provider: 'fz-provider', context_length: 1000, input_price: 0.1, capabilities: ['chat'] } },
    { method: 'PUT', path: '/v1/admin/models/fz-model', key: MASTER_KEY, base: { name: 'M', context_length: 1000, output_price: 0.2 } },
    { method: 'POST', path: '/v1/admin/groups', key: MASTER_KEY, base: { name: 'G', priority: 1, quota_limit: 10, quota_period: 'monthly', models: [] } },
    { method: 'PUT', path: '/v1/admin/groups/fz-group', key: MASTER_KEY, base: { description: 'd', quota_used: 0, features: [] } },
    { method: 'POST', path: '/v1/admin/users', key: MASTER_KEY, base: { email: 'u@example.com', name: 'U', password: 'long enough password', role: 'member', group: 'fz-group' } },
    { method: 'PUT', path: '/v1/admin/users/fz-user', key: MASTER_KEY, base: { name: 'U', group: null, role: 'member' } },
    { method: 'PUT', path: '/v1/settings', key: CAROL, base: { account: { timezone: 'UTC', language: 'en' }, api: { default_temperature: 0.5 }, notifications: { balance_threshold: 1 } } },
    { method: 'POST', path: '/v1/security/send-code', key: CAROL, base: { type: 'totp', recipient: 'carol@example.com' } },
    { method: 'POST', path: '/v1/security/verify', key: CAROL, base: { type: 'totp', code: '123456' } },
  ];
}

describe('fuzz: management, settings and security writes', () => {
  it('generated bodies never get a 5xx; a refused one changes nothing stored', { timeout: TIMEOUT }, async () => {
    const routes = writes();
    const input = fc.constantFrom(...routes).chain((route) =>
      fc.tuple(fc.constant(route), bodyText(fc.oneof({ weight: 4, arbitrary: mutated(route.base) }, { weight: 1, arbitrary: anyJson }))),
    );
    await fc.assert(
      fc.asyncProperty(input, async ([route, body]) => {
        const files = await storedFiles(gw.configFile);
        const settings = (await call('GET', '/v1/settings', CAROL)).text;
        const answer = await call(route.method, route.path, route.key, body);
        expectGatewayAnswer(answer, `${route.method} ${route.path} ${body.slice(0, 300)}`);
        if (answer.status < 400) return;
        expect(await storedFiles(gw.configFile), `refused ${route.method} ${route.path} ${body.slice(0, 300)} changed the file`).toBe(files);
        expect((await call('GET', '/v1/settings', CAROL)).text).toBe(settings);
      }),
      options(RUNS * 3),
    );
  });

  it('ids in paths: generated ids on every item route never get a 5xx', { timeout: TIMEOUT }, async () => {
    // (a lone surrogate has no percent-encoding: fetch could not send it)
    const id = fc.oneof(pathSegment, nastyStrings.filter((v) => !/[\ud800-\udfff]/.test(v)).map(encodeURIComponent));
    const route = fc.constantFrom('api-keys', 'admin/providers', 'admin/models', 'admin/groups', 'admin/users', 'admin/logs');
    const method = fc.constantFrom('GET', 'PUT', 'DELETE', 'POST');
    await fc.assert(
      fc.asyncProperty(route, id, method, async (resource, itemId, verb) => {
        // Real items are left alone: deleting them would starve the other properties.
        if (['mock', 'gpt-4o-mini', 'default', 'alice', 'bob', 'carol', 'ops', 'alice-key', 'bob-key', 'carol-key', 'ops-key', aliceSpareKey].includes(itemId)) return;
        const path = `/v1/${resource}/${itemId}${verb === 'POST' ? '/rotate' : ''}`;
        expectGatewayAnswer(await call(verb, path, MASTER_KEY, verb === 'PUT' ? '{}' : undefined), `${verb} ${path}`);
      }),
      options(RUNS * 2),
    );
  });
});

describe('fuzz: query strings and paths', () => {
  it('logs, statistics, export and lists: generated query strings never get a 5xx', { timeout: TIMEOUT }, async () => {
    const names = ['start_date', 'end_date', 'page', 'page_size', 'limit', 'model', 'status', 'account_id', 'api_key_id', 'group_by', 'format', 'type', 'provider', 'sort', 'order', 'q', 'after', 'before', 'granularity'];
    const path = fc.constantFrom('/v1/admin/logs', '/v1/logs', '/v1/statistics/usage', '/v1/statistics/cost', '/v1/statistics/models', '/v1/statistics/export', '/v1/api-keys', '/api/v1/models', '/v1/system/status');
    const key = fc.constantFrom(MASTER_KEY, ALICE);
    await fc.assert(
      fc.asyncProperty(path, queryString(names), key, async (route, query, who) => {
        const answer = await call('GET', `${route}?${query}`, who);
        expectGatewayAnswer(answer, `GET ${route}?${query}`);
      }),
      options(RUNS * 3),
    );
  });

  it('generated paths and methods never get a 5xx, and unknown ones are answered in the error shape', { timeout: TIMEOUT }, async () => {
    const prefix = fc.constantFrom('', '/v1', '/api/v1', '/v1/admin', '/v1/api-keys', '/v1/statistics', '/api/v1/responses', '/v1/security', '/v1/system');
    const method = fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD');
    await fc.assert(
      fc.asyncProperty(prefix, fc.array(pathSegment, { minLength: 1, maxLength: 3 }), method, async (base, segments, verb) => {
        const path = `${base}/${segments.join('/')}`;
        const answer = await call(verb, path, MASTER_KEY, ['POST', 'PUT', 'PATCH'].includes(verb) ? '{}' : undefined);
        if (verb === 'HEAD' || verb === 'OPTIONS') expect(answer.status, `${verb} ${path}`).toBeLessThan(500);
        else expectGatewayAnswer(answer, `${verb} ${path}`);
      }),
      options(RUNS * 3),
    );
  });
});

describe('fuzz: access', () => {
  it("a member never reaches /v1/admin (403) nor another account's keys (404)", { timeout: TIMEOUT }, async () => {
    const admin = fc.tuple(fc.constantFrom('providers', 'models', 'groups', 'users', 'logs'), fc.option(fc.constantFrom('mock', 'gpt-4o-mini', 'default', 'bob', 'x'), { nil: undefined }));
    const method = fc.constantFrom('GET', 'POST', 'PUT', 'DELETE');
    const foreignKey = fc.constantFrom('bob-key', 'ops-key', 'carol-key');
    const keyMethod = fc.constantFrom(['GET', ''], ['PUT', ''], ['DELETE', ''], ['POST', '/rotate']);
    await fc.assert(
      fc.asyncProperty(admin, method, foreignKey, keyMethod, anyJson, async ([resource, id], verb, other, [keyVerb, suffix], body) => {
        const adminPath = `/v1/admin/${resource}${id ? `/${id}` : ''}`;
        const adminAnswer = await call(verb, adminPath, ALICE, verb === 'POST' || verb === 'PUT' ? JSON.stringify(body) : undefined);
        expectGatewayAnswer(adminAnswer, `${verb} ${adminPath}`);
        expect([403, 405], `${verb} ${adminPath} as a member: ${adminAnswer.status}`).toContain(adminAnswer.status);
        const keyPath = `/v1/api-keys/${other}${suffix}`;
        const keyAnswer = await call(keyVerb, keyPath, ALICE, keyVerb === 'PUT' ? JSON.stringify({ name: 'mine now', status: 'inactive' }) : undefined);
        expectGatewayAnswer(keyAnswer, `${keyVerb} ${keyPath}`);
        expect(keyAnswer.status, `${keyVerb} ${keyPath} as another account`).toBe(404);
      }),
      options(RUNS),
    );
    // Bob's key still works and is unchanged.
    const bobs = JSON.parse((await call('GET', '/v1/api-keys/bob-key', BOB)).text);
    expect(bobs).toMatchObject({ id: 'bob-key', status: 'active' });
    expect(bobs.name).not.toBe('mine now');
  });
});

describe('fuzz: OAuth', () => {
  it('the token endpoint answers generated forms without a 5xx, errors in the OAuth form', { timeout: TIMEOUT }, async () => {
    const field = fc.oneof(fc.string({ maxLength: 30 }), nastyStrings);
    const form = fc.record(
      {
        grant_type: fc.oneof(fc.constantFrom('authorization_code', 'refresh_token', 'client_credentials', 'password', 'urn:ietf:params:oauth:grant-type:device_code'), field),
        code: field, refresh_token: field, redirect_uri: fc.oneof(fc.constant('http://127.0.0.1:5999/callback'), field),
        client_id: fc.oneof(fc.constant('dashboard'), field), client_secret: fc.oneof(fc.constant('dashboard-secret-0123456789'), field),
        code_verifier: field, scope: field,
      },
      { requiredKeys: [] },
    );
    const basic = fc.option(fc.tuple(fc.oneof(fc.constant('dashboard'), field), field), { nil: undefined });
    await fc.assert(
      fc.asyncProperty(form, basic, fc.boolean(), async (fields, credentials, asJson) => {
        const headers: Record<string, string> = { 'content-type': asJson ? 'application/json' : 'application/x-www-form-urlencoded' };
        if (credentials) headers.authorization = `Basic ${Buffer.from(`${credentials[0]}:${credentials[1]}`).toString('base64')}`;
        const body = asJson ? JSON.stringify(fields) : new URLSearchParams(fields as Record<string, string>).toString();
        expectOAuthAnswer(await send(`${gw.url}/oauth/token`, { method: 'POST', headers, body }), `POST /oauth/token ${body}`);
      }),
      options(RUNS * 2),
    );
  });

  it('the login form answers generated submissions without a 5xx', { timeout: TIMEOUT }, async () => {
    const query = new URLSearchParams({ client_id: 'dashboard', redirect_uri: 'http://127.0.0.1:5999/callback', response_type: 'code', scope: 'openid read:api', state: 's' });
    const start = await fetch(`${gw.url}/oauth/authorize?${query}`, { redirect: 'manual' });
    const redirect = start.headers.get('location');
    expect(redirect, `authorize answered ${start.status} without a redirect`).toBeTruthy();
    const location = new URL(redirect!, gw.url);
    const cookie = start.headers.getSetCookie().map((line) => line.split(';')[0]).join('; ');
    const form = fc.record({
      action: fc.oneof(fc.constantFrom('login', 'consent', 'abort'), fc.string({ maxLength: 10 })),
      email: fc.oneof(fc.constantFrom('alice@example.com', 'ALICE@example.com ', 'nobody@example.com'), fc.string({ maxLength: 30 }), nastyStrings),
      password: fc.oneof(fc.string({ maxLength: 30 }), nastyStrings),
    }, { requiredKeys: ['action'] });
    // Each sign-in costs an scrypt on purpose: few runs.
    await fc.assert(
      fc.asyncProperty(form, fc.boolean(), async (fields, withCookie) => {
        const answer = await send(`${gw.url}${location.pathname}`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...(withCookie ? { cookie } : {}) },
          body: new URLSearchParams(fields as Record<string, string>).toString(),
        });
        expectOAuthAnswer(answer, `POST ${location.pathname} ${JSON.stringify(fields)}`);
      }),
      options(Math.min(RUNS, 20)),
    );
  });
});

describe('fuzz: still standing', () => {
  it('answers a normal call after everything above', async () => {
    const answer = await call('POST', '/api/v1/chat/completions', ALICE, JSON.stringify(CHAT));
    expect(answer.status).toBe(200);
    expect((await call('GET', '/v1/system/health', null)).status).toBe(200);
  });
});
