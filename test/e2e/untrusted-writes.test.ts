/**
 * Issue 22: what a member (or an admin's script) writes through the API is data. Values that look
 * like `${VAR}` templates read back byte for byte and expand nothing; every string and list is
 * bounded; hostile bodies, dates and paths are 4xx in the error shape; the data directory is
 * private.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, client, DEMO_KEY, MASTER_KEY, startMockUpstream, startTestGateway, type MockUpstream, type TestGateway } from '../_setup.ts';

let mock: MockUpstream;
let gw: TestGateway;
const asMember = (method: string, path: string, body?: unknown) => api(gw, method, path, body, DEMO_KEY);
const asAdmin = (method: string, path: string, body?: unknown) => api(gw, method, path, body, MASTER_KEY);

beforeAll(async () => {
  mock = await startMockUpstream();
  gw = await startTestGateway('untrusted-writes.yaml', { MOCK_URL: `${mock.url}/v1`, GATEWAY_TEST_SECRET_VAR: 'env-secret-value' });
});
afterAll(async () => {
  await gw?.close();
  await mock?.close();
});

function expectErrorShape(body: unknown) {
  expect(Object.keys(body as object)).toEqual(['error']);
  expect(Object.keys((body as { error: object }).error).sort()).toEqual(['code', 'message', 'param', 'type']);
}

/** Strings that would expand (or fail to) if they were read as templates. */
const TEMPLATES = [
  '${GATEWAY_MASTER_KEY}',
  'leak ${secret:provider_untrusted-upstream_api_key}',
  '${SOME_UNSET_VAR_0815}',
  '${GATEWAY_TEST_SECRET_VAR:-fallback}',
  'already escaped $${GATEWAY_MASTER_KEY}',
  'unterminated ${GATEWAY_MASTER_KEY',
];

describe('values written through the API are never expanded as ${VAR}', () => {
  beforeAll(async () => {
    // A provider whose key lives in the secrets file, for the ${secret:...} probe.
    const created = await asAdmin('POST', '/v1/admin/providers', {
      id: 'untrusted-upstream', name: 'Untrusted', type: 'compat', endpoint: `${mock.url}/v1`, api_key: 'sk-provider-secret-4242', models: ['gpt-4o'],
    });
    expect(created.status).toBe(201);
  });

  /** Every answer and the file itself must be free of what an expansion would reveal. */
  async function expectNoLeak(body: unknown) {
    const text = JSON.stringify(body);
    for (const secret of [MASTER_KEY, 'sk-provider-secret-4242', 'env-secret-value']) expect(text).not.toContain(secret);
  }

  it('a member key: the name and the permitted models of its own key', async () => {
    for (const template of TEMPLATES) {
      const created = await asMember('POST', '/v1/api-keys', { name: template, permissions: { models: [template, 'gpt-4o-mini'] } });
      expect(created.status, template).toBe(201);
      expect(created.body.name).toBe(template);
      const read = await asMember('GET', `/v1/api-keys/${created.body.id}`);
      expect(read.body.name).toBe(template);
      expect(read.body.permissions.models).toEqual([template, 'gpt-4o-mini']);
      await expectNoLeak(read.body);
      const renamed = await asMember('PUT', `/v1/api-keys/${created.body.id}`, { name: `${template}!` });
      expect(renamed.status).toBe(200);
      expect(renamed.body.name).toBe(`${template}!`);
      await asMember('DELETE', `/v1/api-keys/${created.body.id}`);
    }
    await expectNoLeak((await asMember('GET', '/v1/api-keys')).body);
  });

  it('providers: name, header values, models and the upstream key (sent to the upstream as written)', async () => {
    const template = TEMPLATES[0]!;
    const created = await asAdmin('POST', '/v1/admin/providers', {
      id: 'templated', name: template, type: 'compat', endpoint: `${mock.url}/v1`, api_key: template,
      headers: { 'x-probe': template }, models: ['gpt-4o-mini'],
    });
    expect(created.status).toBe(201);
    expect(created.body.name).toBe(template);
    const updated = await asAdmin('PUT', '/v1/admin/providers/templated', { name: TEMPLATES[2], headers: { 'x-probe': TEMPLATES[3] } });
    expect(updated.status).toBe(200);
    expect(updated.body.name).toBe(TEMPLATES[2]);
    await expectNoLeak(updated.body);
    await asAdmin('POST', '/v1/admin/models', { id: 'templated-model', name: template, provider: 'templated', upstream_model: 'gpt-4o-mini' });
    mock.requests.length = 0;
    await client(gw, MASTER_KEY).chat.completions.create({ model: 'templated-model', messages: [{ role: 'user', content: 'hi' }] });
    const sent = mock.requests.at(-1)!;
    expect(sent.headers.authorization).toBe(`Bearer ${template}`);
    expect(sent.headers['x-probe']).toBe(TEMPLATES[3]);
  });

  it('models, groups and users: every free-text field', { timeout: 90_000 }, async () => {
    for (const template of TEMPLATES) {
      const model = await asAdmin('POST', '/v1/admin/models', { id: `model-${TEMPLATES.indexOf(template)}`, name: template, provider: 'mock', upstream_model: 'gpt-4o-mini', capabilities: [template] });
      expect(model.status, JSON.stringify(model.body)).toBe(201);
      expect(model.body.name).toBe(template);
      expect(model.body.capabilities).toEqual([template]);
      const group = await asAdmin('POST', '/v1/admin/groups', { name: template, description: template, models: [template] });
      expect(group.status, JSON.stringify(group.body)).toBe(201);
      expect([group.body.name, group.body.description, group.body.models]).toEqual([template, template, [template]]);
      const renamed = await asAdmin('PUT', `/v1/admin/groups/${group.body.id}`, { description: `${template} (renamed)` });
      expect(renamed.body.description).toBe(`${template} (renamed)`);
    }
    // Two users only: each creation hashes a password (scrypt), the slowest write there is.
    for (const template of TEMPLATES.slice(0, 2)) {
      const user = await asAdmin('POST', '/v1/admin/users', { name: template, email: `u${TEMPLATES.indexOf(template)}@example.com`, password: 'long enough pass' });
      expect(user.status, JSON.stringify(user.body)).toBe(201);
      expect(user.body.name).toBe(template);
    }
    // A reload from the file reads the same values back: nothing was expanded on disk either.
    expect((await gw.gateway.config.reload()).ok).toBe(true);
    const [models, groups, users] = await Promise.all(['models', 'groups', 'users'].map((r) => asAdmin('GET', `/v1/admin/${r}`)));
    const names = [...models!.body.data, ...groups!.body.data, ...users!.body.data].map((item: { name: string }) => item.name);
    for (const template of TEMPLATES) expect(names.filter((name) => name === template).length).toBeGreaterThanOrEqual(TEMPLATES.indexOf(template) < 2 ? 3 : 2);
    for (const list of [models, groups, users]) await expectNoLeak(list!.body);
  });

  it('settings store the default model as written', async () => {
    const updated = await asMember('PUT', '/v1/settings', { api: { default_model: TEMPLATES[0] } });
    expect(updated.status).toBe(200);
    expect((await asMember('GET', '/v1/settings')).body.api.default_model).toBe(TEMPLATES[0]);
    await asMember('PUT', '/v1/settings', { api: { default_model: null } });
  });
});

describe('every written string and list is bounded', () => {
  it('names over 256 characters, descriptions over 4 KiB and lists over 1,000 entries are 400 naming the field', async () => {
    const cases: Array<[string, string, unknown, string]> = [
      ['POST', '/v1/api-keys', { name: 'n'.repeat(257) }, 'name'],
      ['POST', '/v1/api-keys', { name: 'ok', permissions: { models: Array.from({ length: 1001 }, (_, i) => `m${i}`) } }, 'permissions.models'],
      ['POST', '/v1/api-keys', { name: 'ok', permissions: { models: ['m'.repeat(257)] } }, 'permissions.models.0'],
    ];
    for (const [method, path, body, param] of cases) {
      const answer = await asMember(method, path, body);
      expect(answer.status, param).toBe(400);
      expectErrorShape(answer.body);
      expect(answer.body.error.param).toBe(param);
    }
    const admin: Array<[string, unknown, string]> = [
      ['/v1/admin/groups', { name: 'g', description: 'd'.repeat(4097) }, 'description'],
      ['/v1/admin/groups', { name: 'g'.repeat(257) }, 'name'],
      ['/v1/admin/users', { name: 'u'.repeat(257), email: 'long@example.com', password: 'long enough pass' }, 'name'],
      ['/v1/admin/providers', { name: 'p', type: 'compat', endpoint: 'http://127.0.0.1:9/v1', models: Array.from({ length: 1001 }, (_, i) => `m${i}`) }, 'models'],
    ];
    for (const [path, body, param] of admin) {
      const answer = await asAdmin('POST', path, body);
      expect(answer.status, `${path} ${param}`).toBe(400);
      expect(answer.body.error.param).toBe(param);
    }
  });

  it('an account holds at most management.max_keys_per_account keys (409 key_limit_reached)', async () => {
    const mine = (await asMember('GET', '/v1/api-keys')).body.data.length;
    for (let i = mine; i < 3; i++) expect((await asMember('POST', '/v1/api-keys', { name: `filler ${i}` })).status).toBe(201);
    const refused = await asMember('POST', '/v1/api-keys', { name: 'one too many' });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('key_limit_reached');
    // Another account is not affected.
    expect((await asAdmin('POST', '/v1/api-keys', { name: 'for other', account_id: 'other' })).status).toBe(201);
  });
});

describe('hostile input is a 400 in the error shape, never a 500', () => {
  // 12,000 levels of arrays stay under the fixture's 64 KiB body limit.
  const deep = (depth: number) => `{"name":"x","permissions":{"models":${'['.repeat(depth)}${']'.repeat(depth)}}}`;

  it('JSON nested 10,000+ deep in management bodies', async () => {
    for (const [path, key] of [['/v1/api-keys', DEMO_KEY], ['/v1/admin/users', MASTER_KEY], ['/v1/admin/providers', MASTER_KEY], ['/v1/settings', DEMO_KEY]] as const) {
      const response = await fetch(`${gw.url}${path}`, {
        method: path === '/v1/settings' ? 'PUT' : 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: deep(12_000),
      });
      expect(response.status, path).toBe(400);
      const body = await response.json();
      expectErrorShape(body);
      expect(body.error.code).toBe('invalid_body');
    }
  });

  it('statistics dates at the edges of the calendar', async () => {
    for (const query of ['end_date=9999-12-31', 'start_date=0001-01-01&end_date=0001-01-02', 'end_date=275760-09-13']) {
      const answer = await asMember('GET', `/v1/statistics/usage?${query}`);
      expect(answer.status, query).toBe(400);
      expectErrorShape(answer.body);
    }
  });

  it('an object where a user group id belongs', async () => {
    const answer = await asAdmin('PUT', '/v1/admin/users/demo', { group: { toString: 'x' } });
    expect(answer.status).toBe(400);
    expect(answer.body.error.param).toBe('group');
  });

  it('bad percent-escapes in a path', async () => {
    for (const path of ['/v1/%zz', '/v1/api-keys/%E0%A4%A', '/api/v1/chat/completions%']) {
      const response = await fetch(`${gw.url}${path}`, { headers: { authorization: `Bearer ${DEMO_KEY}` } });
      expect(response.status, path).toBe(400);
      const body = await response.json();
      expectErrorShape(body);
      expect(body.error.code).toBe('invalid_path');
    }
  });

  it('unknown paths under /oauth answer the error shape, not plain text', async () => {
    for (const path of ['/oauth/interaction/abc/def', '/oauth/nope', '/oauth/interaction']) {
      const response = await fetch(`${gw.url}${path}`);
      expect(response.status, path).toBe(404);
      expectErrorShape(await response.json());
    }
    // The provider's own endpoints still answer in the OAuth error form.
    const token = await fetch(`${gw.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=nope' });
    expect(token.status).toBe(400);
    expect((await token.json()).error).toEqual(expect.any(String));
  });

  it('an oversized chunked body on a management route is 413, not a reset connection', async () => {
    // 2 MiB in 32 chunks: far past the 64 KiB limit, still arriving when the limit is hit.
    const chunk = new TextEncoder().encode('x'.repeat(65_536));
    let sent = 0;
    const response = await fetch(`${gw.url}/v1/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' },
      body: new ReadableStream({
        pull(controller) {
          if (sent++ === 0) controller.enqueue(new TextEncoder().encode('{"name":"'));
          if (sent > 32) controller.close();
          else controller.enqueue(chunk);
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
    expect((await response.json()).error.code).toBe('body_too_large');
    // The connection pool is still usable afterwards.
    expect((await asMember('GET', '/v1/api-keys')).status).toBe(200);
  });
});

describe('the data directory is private', () => {
  it('the call-log database and its -wal/-shm files are 0600, the directory 0700', async () => {
    await client(gw, DEMO_KEY).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'log me' }] });
    const dataDir = join(gw.dir, 'data');
    // The log is written by a worker in batches: wait for the database's WAL to appear.
    for (let i = 0; i < 50; i++) {
      if (await stat(join(dataDir, 'gateway.db-wal')).then(() => true, () => false)) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
    for (const name of ['gateway.db', 'gateway.db-wal', 'gateway.db-shm', 'oauth-jwks.json']) {
      expect((await stat(join(dataDir, name))).mode & 0o777, name).toBe(0o600);
    }
  });
});
