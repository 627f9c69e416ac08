/**
 * /v1/api-keys e2e: create (full key once), list masked with usage, update, rotate (old key dead
 * at once), delete, ownership (members see only their own), admin creating for another account,
 * and write_back: false answering 409.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/config/keys.ts';
import { api, client, DEMO_KEY, MASTER_KEY, startMockUpstream, startTestGateway, type MockUpstream, type TestGateway } from '../_setup.ts';

let upstream: MockUpstream;
let gw: TestGateway;

const call = (method: string, path: string, body?: unknown, key = MASTER_KEY) => api(gw, method, path, body, key);

const chat = (key: string) => client(gw, key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'count these four words' }] });

beforeAll(async () => {
  upstream = await startMockUpstream();
  gw = await startTestGateway('management.yaml', { MOCK_URL: `${upstream.url}/v1` });
});
afterAll(async () => {
  await gw?.close();
  await upstream?.close();
});

describe('api keys', () => {
  let id: string;
  let full: string;

  it('a member creates a key for itself: 201, full sk-bf- key once, stored only as a hash', async () => {
    const created = await call('POST', '/v1/api-keys', { name: 'ci', permissions: { models: ['gpt-4o-mini'], rate_limit: 30 } }, DEMO_KEY);
    expect(created.status).toBe(201);
    ({ id, key: full } = created.body);
    expect(full).toMatch(/^sk-bf-[A-Za-z0-9_-]{43}$/); // 32 random bytes
    expect(created.body).toMatchObject({ object: 'api_key', name: 'ci', status: 'active', permissions: { models: ['gpt-4o-mini'], rate_limit: 30 }, usage: { total_requests: 0, total_tokens: 0 }, account_id: 'demo' });
    const yaml = await readFile(gw.configFile, 'utf8');
    expect(yaml).not.toContain(full);
    expect(yaml).toContain('key_hash: sha256:');
    expect(yaml).toMatch(new RegExp(`hint: '?${full.slice(-4).replace(/[-_]/g, '\\$&')}'?\n`));
  });

  it('the new key works at once, and usage is counted', async () => {
    const answer = await chat(full);
    await expect.poll(async () => (await call('GET', `/v1/api-keys/${id}`, undefined, DEMO_KEY)).body.usage).toEqual({ total_requests: 1, total_tokens: answer.usage!.total_tokens });
  });

  it('a restricted key cannot lift its own limits, mint a key or manage its unrestricted siblings', async () => {
    const refused = async (method: string, path: string, body?: unknown) => {
      const res = await call(method, path, body, full);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('key_restricted');
    };
    await refused('PUT', `/v1/api-keys/${id}`, { permissions: { models: [], rate_limit: 0 } });
    await refused('POST', '/v1/api-keys', { name: 'unrestricted' });
    await refused('PUT', '/v1/api-keys/demo-key', { name: 'taken over' });
    await refused('POST', '/v1/api-keys/demo-key/rotate');
    await refused('DELETE', '/v1/api-keys/demo-key');
    expect((await call('GET', `/v1/api-keys/${id}`, undefined, DEMO_KEY)).body.permissions).toEqual({ models: ['gpt-4o-mini'], rate_limit: 30, quota_limit: 0 });
    // Within itself it may act: a rename.
    expect((await call('PUT', `/v1/api-keys/${id}`, { name: 'ci' }, full)).status).toBe(200);
  });

  it('lists are masked and scoped to the caller account', async () => {
    const mine = await call('GET', '/v1/api-keys', undefined, DEMO_KEY);
    expect(mine.body.object).toBe('list');
    expect(mine.body.data.map((k: any) => k.id).sort()).toEqual(['demo-key', id].sort());
    const listed = mine.body.data.find((k: any) => k.id === id);
    expect(listed.key).toBe(`sk-bf-…${full.slice(-4)}`);
    expect(JSON.stringify(mine.body)).not.toContain(full);
    // admin sees everything, and can filter by account
    const adminKey = await call('POST', '/v1/api-keys', { name: 'other-key', account_id: 'other' });
    expect(adminKey.status).toBe(201);
    expect(adminKey.body.account_id).toBe('other');
    expect((await call('GET', '/v1/api-keys?account_id=other')).body.data.map((k: any) => k.id)).toEqual([adminKey.body.id]);
    // a member cannot see, change or create for someone else
    expect((await call('GET', `/v1/api-keys/${adminKey.body.id}`, undefined, DEMO_KEY)).status).toBe(404);
    expect((await call('PUT', `/v1/api-keys/${adminKey.body.id}`, { name: 'x' }, DEMO_KEY)).status).toBe(404);
    expect((await call('DELETE', `/v1/api-keys/${adminKey.body.id}`, undefined, DEMO_KEY)).status).toBe(404);
    expect((await call('POST', '/v1/api-keys', { name: 'sneaky', account_id: 'other' }, DEMO_KEY)).status).toBe(403);
  });

  it('a create cannot set what the gateway sets: the account, the hash, the hint, the id', async () => {
    // A member naming another account in the stored field, with the hash of a secret it chose.
    const chosen = 'sk-bf-chosen-by-the-caller-000000000000000000000';
    const keysBefore = (await readFile(gw.configFile, 'utf8')).match(/key_hash:/g)!.length;
    for (const [field, value] of [['account', 'other'], ['key_hash', hashApiKey(chosen)], ['hint', 'abcd'], ['__proto__', { account: 'other' }]] as const) {
      // Parsed from text so that `__proto__` is an own field, as a client's JSON makes it.
      const answer = await call('POST', '/v1/api-keys', JSON.parse(`{"name":"sneaky","${field}":${JSON.stringify(value)}}`), DEMO_KEY);
      expect(answer.status, field).toBe(400);
      expect(answer.body.error).toMatchObject({ type: 'invalid_request_error', param: field });
    }
    expect((await readFile(gw.configFile, 'utf8')).match(/key_hash:/g)!.length).toBe(keysBefore);
    expect((await chat(chosen).catch((e) => e)).status).toBe(401);
  });

  it('update changes name/permissions and status inactive makes the key 401', async () => {
    const put = await call('PUT', `/v1/api-keys/${id}`, { name: 'ci-renamed', permissions: { rate_limit: 5 } }, DEMO_KEY);
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ id, name: 'ci-renamed', permissions: { models: ['gpt-4o-mini'], rate_limit: 5 }, key: `sk-bf-…${full.slice(-4)}` });
    expect((await call('PUT', `/v1/api-keys/${id}`, { status: 'paused' }, DEMO_KEY)).body.error.param).toBe('status');
    expect((await call('PUT', `/v1/api-keys/${id}`, { key_hash: 'sha256:00' }, DEMO_KEY)).status).toBe(400);
    await call('PUT', `/v1/api-keys/${id}`, { status: 'inactive' }, DEMO_KEY);
    const err = await chat(full).catch((e) => e);
    expect(err.status).toBe(401);
    expect(err.code).toBe('invalid_api_key');
    await call('PUT', `/v1/api-keys/${id}`, { status: 'active' }, DEMO_KEY);
    await expect(chat(full)).resolves.toBeTruthy();
  });

  it('a PUT naming a read-only field with another value is 400 naming it, and nothing is written; sent back unchanged it is accepted', async () => {
    const before = await readFile(gw.configFile, 'utf8');
    const shown = (await call('GET', `/v1/api-keys/${id}`, undefined, DEMO_KEY)).body;
    const changes: Array<[string, unknown]> = [
      ['account_id', 'other'], ['id', 'key_other'], ['created_at', '2020-01-01T00:00:00Z'], ['key', 'sk-bf-…abcd'],
      ['usage', { total_requests: 0, total_tokens: 0 }], ['quota_used', 99], ['object', 'user'], ['account', 'other'], ['hint', 'abcd'],
    ];
    for (const [field, value] of changes) {
      for (const key of [DEMO_KEY, MASTER_KEY]) {
        const answer = await call('PUT', `/v1/api-keys/${id}`, { name: 'moved', [field]: value }, key);
        expect(answer.status, field).toBe(400);
        expect(answer.body.error, field).toMatchObject({ type: 'invalid_request_error', code: 'read_only_field', param: field });
      }
    }
    expect(await readFile(gw.configFile, 'utf8')).toBe(before);
    expect((await call('GET', `/v1/api-keys/${id}`, undefined, DEMO_KEY)).body).toMatchObject({ name: shown.name, account_id: 'demo' });
    // What GET answered, sent back whole with one change: the read-only fields are as shown.
    const { usage: _usage, quota_used: _used, ...echo } = shown;
    const saved = await call('PUT', `/v1/api-keys/${id}`, { ...echo, name: 'echoed' }, DEMO_KEY);
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ id, name: 'echoed', account_id: 'demo' });
    await call('PUT', `/v1/api-keys/${id}`, { name: shown.name }, DEMO_KEY);
  });

  it('null clears permissions.quota_period: the answer, a later GET and the file agree', async () => {
    const set = await call('PUT', `/v1/api-keys/${id}`, { permissions: { quota_limit: 1000, quota_period: 'daily' } }, DEMO_KEY);
    expect(set.body).toMatchObject({ permissions: { quota_limit: 1000, quota_period: 'daily' }, quota_period: 'daily' });
    const cleared = await call('PUT', `/v1/api-keys/${id}`, { permissions: { quota_period: null } }, DEMO_KEY);
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ permissions: { models: ['gpt-4o-mini'], rate_limit: 5, quota_limit: 1000 }, quota_period: null, quota_resets_at: null });
    expect(cleared.body.permissions).not.toHaveProperty('quota_period');
    expect((await call('GET', `/v1/api-keys/${id}`, undefined, DEMO_KEY)).body).toEqual(cleared.body);
    expect(await readFile(gw.configFile, 'utf8')).not.toContain('quota_period');
    // `permissions` that is not an object is still refused; a field with a default goes back to it.
    expect((await call('PUT', `/v1/api-keys/${id}`, { permissions: 'all' }, DEMO_KEY)).body.error.param).toBe('permissions');
    const reset = await call('PUT', `/v1/api-keys/${id}`, { permissions: { quota_limit: null } }, DEMO_KEY);
    expect(reset.body.permissions).toEqual({ models: ['gpt-4o-mini'], rate_limit: 5, quota_limit: 0 });
  });

  it('rotate returns a new full key; the old one stops working at once', async () => {
    const rotated = await call('POST', `/v1/api-keys/${id}/rotate`, undefined, DEMO_KEY);
    expect(rotated.status).toBe(200);
    expect(rotated.body.id).toBe(id);
    expect(rotated.body.key).toMatch(/^sk-bf-/);
    expect(rotated.body.key).not.toBe(full);
    const old = await chat(full).catch((e) => e);
    expect(old.status).toBe(401);
    await expect(chat(rotated.body.key)).resolves.toBeTruthy();
    full = rotated.body.key;
  });

  it('delete answers {id, object, deleted} and the key is 401 afterwards; unknown ids 404', async () => {
    expect((await call('DELETE', `/v1/api-keys/${id}`, undefined, DEMO_KEY)).body).toEqual({ id, object: 'api_key', deleted: true });
    expect((await chat(full).catch((e) => e)).status).toBe(401);
    expect((await call('DELETE', `/v1/api-keys/${id}`)).status).toBe(404);
    expect((await call('POST', `/v1/api-keys/nope/rotate`)).status).toBe(404);
  });

  it('keys made by the master key or an unscoped key are unscoped; an unscoped caller may narrow scopes and lift them', async () => {
    const byMaster = await call('POST', '/v1/api-keys', { name: 'by-master', account_id: 'demo' });
    const byKey = await call('POST', '/v1/api-keys', { name: 'by-key' }, DEMO_KEY);
    for (const created of [byMaster, byKey]) {
      expect(created.status).toBe(201);
      expect(created.body.scopes).toBeNull();
    }
    expect((await call('GET', '/v1/api-keys', undefined, DEMO_KEY)).body.data.map((k: any) => k.scopes)).toEqual([null, null, null]);
    await expect(chat(byKey.body.key)).resolves.toBeTruthy();
    // Narrowed to reading, the key is held to read:api as a token with it is: it cannot spend.
    const narrowed = await call('PUT', `/v1/api-keys/${byKey.body.id}`, { scopes: ['read:api'] }, DEMO_KEY);
    expect(narrowed.status).toBe(200);
    expect(narrowed.body.scopes).toEqual(['read:api']);
    const refused = await chat(byKey.body.key).catch((e) => e);
    expect(refused.status).toBe(403);
    expect(refused.code).toBe('insufficient_scope');
    expect((await call('GET', '/v1/api-keys', undefined, byKey.body.key)).status).toBe(200);
    expect((await call('GET', '/v1/settings', undefined, byKey.body.key)).body.error.code).toBe('insufficient_scope');
    // `null` lifts the limit again; only an unscoped caller may (scopes.test.ts has the scoped ones).
    const lifted = await call('PUT', `/v1/api-keys/${byKey.body.id}`, { scopes: null }, DEMO_KEY);
    expect(lifted.body.scopes).toBeNull();
    expect(await readFile(gw.configFile, 'utf8')).not.toContain('scopes');
    await expect(chat(byKey.body.key)).resolves.toBeTruthy();
    for (const scopes of [[], ['write:api', 'write:api'], ['teleport'], 'read:api']) {
      const bad = await call('POST', '/v1/api-keys', { name: 'bad', scopes }, DEMO_KEY);
      expect(bad.status, JSON.stringify(scopes)).toBe(400);
      expect(bad.body.error.param).toMatch(/^scopes/);
    }
    for (const created of [byMaster, byKey]) expect((await call('DELETE', `/v1/api-keys/${created.body.id}`)).status).toBe(200);
  });

  it('with management.write_back: false, writes are 409 and the file is untouched', async () => {
    const text = await readFile(gw.configFile, 'utf8');
    await writeFile(gw.configFile, `${text}management:\n  write_back: false\n`);
    expect((await gw.gateway.config.reload()).ok).toBe(true);
    const before = await readFile(gw.configFile, 'utf8');
    for (const [method, path, body] of [
      ['POST', '/v1/api-keys', { name: 'x' }],
      ['POST', '/v1/admin/groups', { name: 'x' }],
      ['PUT', '/v1/admin/groups/default', { priority: 1 }],
      ['DELETE', '/v1/admin/models/gpt-4o-mini', undefined],
    ] as const) {
      const res = await call(method, path, body);
      expect(res.status).toBe(409);
      expect(res.body.error.message).toMatch(/only source/);
    }
    expect(await readFile(gw.configFile, 'utf8')).toBe(before);
    expect((await call('GET', '/v1/admin/groups')).status).toBe(200);
  });
});
