/**
 * Management API e2e: shapes and statuses of /v1/admin/{providers,models,groups,users}, masking,
 * validation against the file schema, write-back that keeps the operator's comments, and
 * serialised concurrent writes.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, client, MASTER_KEY, DEMO_KEY, startMockUpstream, startTestGateway, type MockUpstream, type TestGateway } from '../_setup.ts';

let upstream: MockUpstream;
let gw: TestGateway;

const call = (method: string, path: string, body?: unknown, key = MASTER_KEY) => api(gw, method, path, body, key);

beforeAll(async () => {
  upstream = await startMockUpstream();
  gw = await startTestGateway('management.yaml', { MOCK_URL: `${upstream.url}/v1` }, { watch: true });
  await gw.gateway.config.watcher?.ready;
});
afterAll(async () => {
  await gw?.close();
  await upstream?.close();
});

describe('providers', () => {
  it('lists with masked api_key and quota fields', async () => {
    const { status, body } = await call('GET', '/v1/admin/providers');
    expect(status).toBe(200);
    expect(body.object).toBe('list');
    const mock = body.data.find((p: any) => p.id === 'mock');
    expect(mock).toMatchObject({ id: 'mock', name: 'Mock upstream', type: 'compat', status: 'active', quota_limit: 0, quota_used: 0 });
    expect(mock.api_key).toBe('…0001');
    expect(JSON.stringify(body)).not.toContain('upstream-secret-key-0001');
  });

  it('creates with a slug id, keeps the api_key out of the YAML, and masks it', async () => {
    const { status, body } = await call('POST', '/v1/admin/providers', {
      name: 'Second Upstream!', type: 'compat', endpoint: `${upstream.url}/v1`, api_key: 'sk-second-secret-9876', models: ['gpt-4o'],
    });
    expect(status).toBe(201);
    expect(body).toMatchObject({ id: 'second-upstream', object: 'provider', status: 'active', api_key: 'sk-…9876', models: ['gpt-4o'], quota_used: 0 });
    expect(body.created_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    const yaml = await readFile(gw.configFile, 'utf8');
    expect(yaml).not.toContain('sk-second-secret-9876');
    expect(yaml).toContain('api_key: ${secret:provider_second-upstream_api_key}');
    const secretsFile = join(gw.dir, 'gateway.secrets.json');
    expect(JSON.parse(await readFile(secretsFile, 'utf8'))['provider_second-upstream_api_key']).toBe('sk-second-secret-9876');
    expect((await stat(secretsFile)).mode & 0o777).toBe(0o600);
    // the secret really reaches the upstream
    upstream.requests.length = 0;
    await client(gw, DEMO_KEY).chat.completions.create({ model: 'second-upstream/gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    expect(upstream.requests.at(-1)!.headers.authorization).toBe('Bearer sk-second-secret-9876');
  });

  it('rejects invalid bodies naming the field, duplicates, unknown ids', async () => {
    const bad = await call('POST', '/v1/admin/providers', { name: 'x', type: 'nope', endpoint: 'http://x' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('type');
    expect(bad.body.error.message).toContain('type');
    const missing = await call('POST', '/v1/admin/providers', { name: 'y', type: 'compat' });
    expect(missing.status).toBe(400);
    expect(missing.body.error.param).toBe('endpoint');
    const unknownField = await call('POST', '/v1/admin/providers', { name: 'z', type: 'compat', endpoint: 'http://z/v1', colour: 'red' });
    expect(unknownField.status).toBe(400);
    expect(unknownField.body.error.param).toBe('colour');
    expect((await call('POST', '/v1/admin/providers', { id: 'mock', type: 'compat', endpoint: 'http://z/v1' })).status).toBe(409);
    expect((await call('GET', '/v1/admin/providers/nope')).status).toBe(404);
    expect((await call('PUT', '/v1/admin/providers/nope', { status: 'inactive' })).status).toBe(404);
    expect((await call('DELETE', '/v1/admin/providers/nope')).status).toBe(404);
  });

  it('PUT status inactive takes the provider out of routing at once; PUT returns the whole object', async () => {
    const created = await call('POST', '/v1/admin/providers', { id: 'temp', type: 'compat', endpoint: `${upstream.url}/v1`, api_key: 'temp-upstream-key', models: ['gpt-4o'] });
    expect(created.status).toBe(201);
    const ok = await client(gw, DEMO_KEY).chat.completions.create({ model: 'temp/gpt-4o', messages: [{ role: 'user', content: 'a' }] });
    expect(ok.choices[0]!.message.content).toBeTruthy();
    const put = await call('PUT', '/v1/admin/providers/temp', { status: 'inactive', quota_limit: 1000 });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ id: 'temp', object: 'provider', status: 'inactive', quota_limit: 1000, type: 'compat', models: ['gpt-4o'] });
    const err = await client(gw, DEMO_KEY).chat.completions.create({ model: 'temp/gpt-4o', messages: [{ role: 'user', content: 'a' }] }).catch((e) => e);
    expect(err.status).toBe(404);
    expect(err.code).toBe('model_not_found');
  });

  it('deleting a provider still used by models is 409 naming them; unused deletes', async () => {
    const used = await call('DELETE', '/v1/admin/providers/mock');
    expect(used.status).toBe(409);
    expect(used.body.error.message).toContain('gpt-4o-mini');
    const del = await call('DELETE', '/v1/admin/providers/temp');
    expect(del).toMatchObject({ status: 200, body: { id: 'temp', object: 'provider', deleted: true } });
    expect((await call('GET', '/v1/admin/providers/temp')).status).toBe(404);
  });
});

describe('models', () => {
  it('create, get, update, inactive, delete', async () => {
    const created = await call('POST', '/v1/admin/models', { id: 'fast', name: 'Fast', provider: 'mock', context_length: 8000, input_price: 0.1, output_price: 0.2, upstream_model: 'gpt-4o' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: 'fast', object: 'model', name: 'Fast', provider: 'mock', context_length: 8000, input_price: 0.1, output_price: 0.2, capabilities: [], status: 'active' });
    const answer = await client(gw, DEMO_KEY).chat.completions.create({ model: 'fast', messages: [{ role: 'user', content: 'x' }] });
    expect(answer.model).toBe('fast');
    const put = await call('PUT', '/v1/admin/models/fast', { status: 'inactive', input_price: 0.5 });
    expect(put.body).toMatchObject({ id: 'fast', status: 'inactive', input_price: 0.5, output_price: 0.2, name: 'Fast' });
    const err = await client(gw, DEMO_KEY).chat.completions.create({ model: 'fast', messages: [{ role: 'user', content: 'x' }] }).catch((e) => e);
    expect(err.status).toBe(404);
    expect((await call('GET', '/v1/admin/models')).body.data.map((m: any) => m.id)).toEqual(['gpt-4o-mini', 'fast']);
    expect((await call('DELETE', '/v1/admin/models/fast')).body).toEqual({ id: 'fast', object: 'model', deleted: true });
  });

  it('a model naming an unknown provider is 400; bad field types are 400 naming the field', async () => {
    const unknown = await call('POST', '/v1/admin/models', { id: 'm2', name: 'M2', provider: 'ghost', context_length: 100 });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.param).toBe('provider');
    expect(unknown.body.error.message).toContain('ghost');
    const badPut = await call('PUT', '/v1/admin/models/gpt-4o-mini', { input_price: 'cheap' });
    expect(badPut.status).toBe(400);
    expect(badPut.body.error.param).toBe('input_price');
    const badPut2 = await call('PUT', '/v1/admin/models/gpt-4o-mini', { provider: 'ghost' });
    expect(badPut2.status).toBe(400);
    expect(badPut2.body.error.param).toBe('provider');
  });
});

describe('groups', () => {
  it('create (slug id), update quota, 409 while members remain, delete', async () => {
    const created = await call('POST', '/v1/admin/groups', { name: 'Premium Users', description: 'paying', priority: 10, quota_limit: 5000, models: ['gpt-4o-mini'], features: ['priority_queue'] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: 'premium-users', object: 'group', name: 'Premium Users', description: 'paying', priority: 10, quota_limit: 5000, quota_used: 0, models: ['gpt-4o-mini'], features: ['priority_queue'] });
    const put = await call('PUT', '/v1/admin/groups/premium-users', { quota_limit: 9000 });
    expect(put.body).toMatchObject({ quota_limit: 9000, priority: 10, description: 'paying' });
    expect((await call('DELETE', '/v1/admin/groups/default')).status).toBe(409);
    expect((await call('DELETE', '/v1/admin/groups/premium-users')).body).toEqual({ id: 'premium-users', object: 'group', deleted: true });
  });
});

describe('users', () => {
  it('create hashes the password; shape per CONTRACT; unknown group 400; admin only', async () => {
    const created = await call('POST', '/v1/admin/users', { email: 'new@example.com', name: 'New Person', password: 'correct horse', role: 'member', group: 'default' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: 'new-person', email: 'new@example.com', name: 'New Person', role: 'member', group: 'default' });
    expect(created.body).not.toHaveProperty('password');
    expect(created.body).not.toHaveProperty('password_hash');
    const yaml = await readFile(gw.configFile, 'utf8');
    expect(yaml).not.toContain('correct horse');
    expect(yaml).toMatch(/password_hash: \$scrypt\$ln=17,r=8,p=1\$/);
    const badGroup = await call('POST', '/v1/admin/users', { email: 'x@example.com', name: 'X', password: 'longenough', role: 'member', group: 'ghost' });
    expect(badGroup.status).toBe(400);
    expect(badGroup.body.error.param).toBe('group');
    const badRole = await call('POST', '/v1/admin/users', { email: 'y@example.com', name: 'Y', password: 'longenough', role: 'boss' });
    expect(badRole.body.error.param).toBe('role');
    const put = await call('PUT', '/v1/admin/users/new-person', { role: 'admin' });
    expect(put.body).toMatchObject({ id: 'new-person', role: 'admin', email: 'new@example.com' });
    expect((await call('GET', '/v1/admin/users', undefined, DEMO_KEY)).status).toBe(403);
    expect((await call('POST', '/v1/admin/groups', { name: 'n' }, DEMO_KEY)).status).toBe(403);
    expect((await call('DELETE', '/v1/admin/users/demo')).status).toBe(409); // still owns demo-key
    expect((await call('DELETE', '/v1/admin/users/new-person')).body).toEqual({ id: 'new-person', object: 'user', deleted: true });
  });
});

describe('write-back', () => {
  it('keeps comments and untouched formatting through create/update/delete', async () => {
    const before = await readFile(gw.configFile, 'utf8');
    await call('POST', '/v1/admin/groups', { id: 'roundtrip', name: 'Round trip' });
    await call('PUT', '/v1/admin/groups/roundtrip', { priority: 3 });
    await call('DELETE', '/v1/admin/groups/roundtrip');
    const after = await readFile(gw.configFile, 'utf8');
    expect(after).toBe(before);
    await call('PUT', '/v1/admin/models/gpt-4o-mini', { input_price: 0.25 });
    const edited = await readFile(gw.configFile, 'utf8');
    for (const line of [
      '# Management e2e fixture.  This header comment must survive every API write.',
      '  body_limit: 65536            # odd spacing kept on purpose',
      '  # The mock upstream: comment above an item.',
      '    type: compat               # wire format',
      '    provider: mock             # keep me',
      '# Trailing comment at the end of the file.',
    ]) expect(edited).toContain(line);
    expect(edited).toContain('input_price: 0.25');
  });

  it('20 concurrent creates are all kept', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => call('POST', '/v1/admin/groups', { id: `bulk-${i}`, name: `Bulk ${i}` })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(201));
    const ids = (await call('GET', '/v1/admin/groups')).body.data.map((g: any) => g.id);
    for (let i = 0; i < 20; i++) expect(ids).toContain(`bulk-${i}`);
    const yaml = await readFile(gw.configFile, 'utf8');
    for (let i = 0; i < 20; i++) expect(yaml).toContain(`id: bulk-${i}`);
  });

  it('a hand edit of the file is still picked up after API writes (the watcher only skips our own write)', async () => {
    const { writeFile } = await import('node:fs/promises');
    const text = await readFile(gw.configFile, 'utf8');
    await writeFile(gw.configFile, text.replace('name: Default', 'name: Default (edited by hand)'));
    await expect.poll(async () => (await call('GET', '/v1/admin/groups/default')).body.name, { timeout: 3000 }).toBe('Default (edited by hand)');
  });
});
