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

describe('ids in the path', () => {
  it('a model whose id needs percent-encoding is read, updated and deleted at its encoded path', async () => {
    for (const id of ['meta/llama-3', 'a b?#%é']) {
      expect((await call('POST', '/v1/admin/models', { id, provider: 'mock' })).status).toBe(201);
      const path = `/v1/admin/models/${encodeURIComponent(id)}`;
      expect(await call('GET', path)).toMatchObject({ status: 200, body: { id, object: 'model' } });
      expect(await call('PUT', path, { name: 'Renamed' })).toMatchObject({ status: 200, body: { id, name: 'Renamed' } });
      expect(await call('DELETE', path)).toMatchObject({ status: 200, body: { id, object: 'model', deleted: true } });
      const gone = await call('GET', path);
      expect(gone.status).toBe(404);
      expect(gone.body.error.message).toBe(`No model with id '${id}'.`);
    }
  });

  it('a model whose id holds `${` (written `$${` in the file) is created, read, updated and deleted', async () => {
    for (const id of ['tpl-${HOME}', '${GATEWAY_MASTER_KEY}', 'a$${b', 'open-${']) {
      const path = `/v1/admin/models/${encodeURIComponent(id)}`;
      expect(await call('POST', '/v1/admin/models', { id, provider: 'mock' })).toMatchObject({ status: 201, body: { id } });
      expect(await call('GET', path)).toMatchObject({ status: 200, body: { id, object: 'model' } });
      expect(await call('PUT', path, { name: 'Renamed' })).toMatchObject({ status: 200, body: { id, name: 'Renamed' } });
      expect((await call('GET', '/v1/admin/models')).body.data.filter((m: any) => m.id === id)).toMatchObject([{ name: 'Renamed' }]);
      expect(await call('DELETE', path)).toMatchObject({ status: 200, body: { id, object: 'model', deleted: true } });
      expect((await call('GET', path)).status).toBe(404);
    }
    expect(await readFile(gw.configFile, 'utf8')).not.toContain('Renamed');
  });

  it('a malformed escape in a path id is 400 invalid_path in the error shape', async () => {
    for (const path of ['/v1/admin/models/%E0%A4%A', '/v1/admin/groups/%FF', '/v1/api-keys/%C3%2F']) {
      const answer = await call('GET', path);
      expect(answer.status, path).toBe(400);
      expect(answer.body).toEqual({ error: { message: expect.any(String), type: 'invalid_request_error', param: null, code: 'invalid_path' } });
    }
  });
});

describe('upstream endpoints and headers', () => {
  it('an endpoint of another scheme than http(s), or at a link-local or metadata address, is 400 naming it; nothing is written', async () => {
    const before = await readFile(gw.configFile, 'utf8');
    for (const endpoint of ['file:///etc/passwd', 'gopher://127.0.0.1:6379/_', 'unix:/var/run/docker.sock', 'http://169.254.169.254/latest', 'http://2852039166/', 'http://[::ffff:169.254.169.254]/', 'http://[fd00:ec2::254]/']) {
      const created = await call('POST', '/v1/admin/providers', { id: 'sneaky', type: 'compat', endpoint });
      expect(created.status, endpoint).toBe(400);
      expect(created.body.error, endpoint).toMatchObject({ type: 'invalid_request_error', code: 'invalid_value', param: 'endpoint' });
      for (const path of ['/v1/admin/providers/mock', '/v1/admin/models/gpt-4o-mini']) {
        const updated = await call('PUT', path, { endpoint });
        expect(updated.status, `${path} ${endpoint}`).toBe(400);
        expect(updated.body.error.param).toBe('endpoint');
      }
      expect((await call('POST', '/v1/admin/models', { id: 'sneaky-model', provider: 'mock', endpoint })).body.error.param).toBe('endpoint');
    }
    expect(await readFile(gw.configFile, 'utf8')).toBe(before);
    // Loopback and private addresses stay allowed: a local vLLM is a normal upstream.
    const local = await call('POST', '/v1/admin/providers', { id: 'local-vllm', type: 'compat', endpoint: 'http://10.1.2.3:8000/v1' });
    expect(local.status).toBe(201);
    expect((await call('DELETE', '/v1/admin/providers/local-vllm')).status).toBe(200);
  });

  it('a provider header name longer than 128 characters or not an HTTP token is 400 naming headers', async () => {
    for (const name of ['x'.repeat(129), 'bad name', 'x-a:b', '']) {
      const answer = await call('POST', '/v1/admin/providers', { id: 'headers', type: 'compat', endpoint: 'http://127.0.0.1:1/v1', headers: { [name]: 'v' } });
      expect(answer.status, name).toBe(400);
      expect(answer.body.error).toMatchObject({ type: 'invalid_request_error', param: 'headers' });
      expect((await call('PUT', '/v1/admin/providers/mock', { headers: { [name]: 'v' } })).body.error.param).toBe('headers');
    }
    const fine = await call('PUT', '/v1/admin/providers/mock', { headers: { ['x-' + 'a'.repeat(126)]: 'v' } });
    expect(fine.status).toBe(200);
    expect((await call('PUT', '/v1/admin/providers/mock', { headers: null })).status).toBe(200);
  });
});

describe('read-only fields in a PUT', () => {
  it('another value is 400 read_only_field naming it, and nothing is written; sent back unchanged it is accepted', async () => {
    const before = await readFile(gw.configFile, 'utf8');
    const refusals: Array<[string, Record<string, unknown>, string]> = [
      ['/v1/admin/models/gpt-4o-mini', { created_at: '2020-01-01T00:00:00Z' }, 'created_at'],
      ['/v1/admin/models/gpt-4o-mini', { id: 'renamed' }, 'id'],
      ['/v1/admin/models/gpt-4o-mini', { quota_used: 5 }, 'quota_used'],
      ['/v1/admin/providers/mock', { object: 'model' }, 'object'],
      ['/v1/admin/providers/mock', { quota_resets_at: '2030-01-01T00:00:00Z' }, 'quota_resets_at'],
      ['/v1/admin/groups/default', { id: 'other' }, 'id'],
      ['/v1/admin/users/demo', { password_hash: '$scrypt$n=16384,r=8,p=1$AAAA$BBBB' }, 'password_hash'],
      ['/v1/admin/users/demo', { created_at: '2020-01-01T00:00:00Z' }, 'created_at'],
    ];
    for (const [path, body, field] of refusals) {
      const answer = await call('PUT', path, { name: 'Changed', ...body });
      expect(answer.status, `${path} ${field}`).toBe(400);
      expect(answer.body.error).toMatchObject({ type: 'invalid_request_error', code: 'read_only_field', param: field });
    }
    expect(await readFile(gw.configFile, 'utf8')).toBe(before);
    for (const path of ['/v1/admin/models/gpt-4o-mini', '/v1/admin/groups/default', '/v1/admin/users/demo']) {
      const shown = (await call('GET', path)).body;
      const saved = await call('PUT', path, { ...shown, name: shown.name });
      expect(saved.status, `${path} ${JSON.stringify(saved.body)}`).toBe(200);
      expect(saved.body).toEqual(shown);
    }
  });
});

describe('null in a partial PUT', () => {
  it('clears a group quota_period: the answer, a later GET and the file agree', async () => {
    expect((await call('PUT', '/v1/admin/groups/default', { quota_period: 'daily' })).body.quota_period).toBe('daily');
    const cleared = await call('PUT', '/v1/admin/groups/default', { quota_period: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ id: 'default', quota_period: null, quota_resets_at: null });
    expect((await call('GET', '/v1/admin/groups/default')).body).toEqual(cleared.body);
    expect(await readFile(gw.configFile, 'utf8')).not.toContain('quota_period');
  });

  it('clears a model endpoint, upstream_model and timeouts (a timeout alone too), keeping the comments', async () => {
    const set = await call('PUT', '/v1/admin/models/gpt-4o-mini', { endpoint: `${upstream.url}/v1`, upstream_model: 'gpt-4o', timeouts: { connect: 500, idle: 700 } });
    expect(set.body).toMatchObject({ endpoint: `${upstream.url}/v1`, upstream_model: 'gpt-4o', timeouts: { connect: 500, idle: 700 } });
    const one = await call('PUT', '/v1/admin/models/gpt-4o-mini', { timeouts: { connect: null } });
    expect(one.body.timeouts).toEqual({ idle: 700 });
    const cleared = await call('PUT', '/v1/admin/models/gpt-4o-mini', { endpoint: null, upstream_model: null, timeouts: null });
    expect(cleared.status).toBe(200);
    for (const field of ['endpoint', 'upstream_model', 'timeouts']) expect(cleared.body).not.toHaveProperty(field);
    expect((await call('GET', '/v1/admin/models/gpt-4o-mini')).body).toEqual(cleared.body);
    const yaml = await readFile(gw.configFile, 'utf8');
    expect(yaml).toContain('  - id: gpt-4o-mini\n    name: GPT-4o mini\n    provider: mock             # keep me\n    context_length: 128000\n');
    expect(yaml).not.toMatch(/upstream_model|timeouts|null/);
  });

  it('clears a provider api_key (the YAML line and its secret go), headers and timeouts', async () => {
    const secretsFile = join(gw.dir, 'gateway.secrets.json');
    const created = await call('POST', '/v1/admin/providers', {
      id: 'clearable', type: 'compat', endpoint: `${upstream.url}/v1`, api_key: 'sk-clearable-secret-1234', headers: { 'X-Team': 'ml' }, timeouts: { total: 9000 },
    });
    expect(created.status).toBe(201);
    expect(JSON.parse(await readFile(secretsFile, 'utf8'))).toHaveProperty('provider_clearable_api_key');
    const cleared = await call('PUT', '/v1/admin/providers/clearable', { api_key: null, headers: null, timeouts: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.api_key).toBeNull();
    expect(cleared.body).not.toHaveProperty('headers');
    expect(cleared.body).not.toHaveProperty('timeouts');
    expect((await call('GET', '/v1/admin/providers/clearable')).body).toEqual(cleared.body);
    expect(JSON.parse(await readFile(secretsFile, 'utf8'))).not.toHaveProperty('provider_clearable_api_key');
    const yaml = await readFile(gw.configFile, 'utf8');
    expect(yaml).not.toContain('provider_clearable_api_key');
    expect(yaml).not.toContain('X-Team');
    expect((await call('DELETE', '/v1/admin/providers/clearable')).status).toBe(200);
  });

  it('clears an optional field that has a default back to it (a name to the id, a list to [])', async () => {
    expect((await call('POST', '/v1/admin/groups', { id: 'resettable', name: 'Resettable', description: 'd', priority: 4, models: ['gpt-4o-mini'] })).status).toBe(201);
    const reset = await call('PUT', '/v1/admin/groups/resettable', { name: null, description: null, priority: null, models: null });
    expect(reset.status).toBe(200);
    expect(reset.body).toMatchObject({ id: 'resettable', name: 'resettable', description: '', priority: 0, models: [] });
    expect((await call('GET', '/v1/admin/groups/resettable')).body).toEqual(reset.body);
    expect(await readFile(gw.configFile, 'utf8')).toMatch(/ {2}- id: resettable\n {4}created_at: \S+\n/);
    expect((await call('DELETE', '/v1/admin/groups/resettable')).status).toBe(200);
  });

  it('a required field given null is 400 naming it, and nothing is written', async () => {
    const before = await readFile(gw.configFile, 'utf8');
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['/v1/admin/models/gpt-4o-mini', { provider: null }, 'provider'],
      ['/v1/admin/providers/mock', { endpoint: null }, 'endpoint'],
      ['/v1/admin/providers/mock', { type: null }, 'type'],
      ['/v1/admin/users/demo', { email: null }, 'email'],
      ['/v1/admin/models/gpt-4o-mini', { deployments: [{ provider: null }] }, 'deployments.0.provider'],
    ];
    for (const [path, body, field] of cases) {
      const answer = await call('PUT', path, body);
      expect(answer.status, field).toBe(400);
      expect(answer.body.error).toEqual({ message: `\`${field}\` is required and cannot be cleared with null.`, type: 'invalid_request_error', param: field, code: 'invalid_value' });
    }
    expect(await readFile(gw.configFile, 'utf8')).toBe(before);
  });
});

describe('answers show every stored field', () => {
  it('a model PUT answers every field it wrote, and a later GET answers the same', async () => {
    expect((await call('POST', '/v1/admin/models', { id: 'full', provider: 'mock' })).status).toBe(201);
    const fields = {
      name: 'Full', context_length: 4096, input_price: 0.5, output_price: 1, capabilities: ['chat'], status: 'active',
      upstream_model: 'gpt-4o', endpoint: `${upstream.url}/v1`, timeouts: { connect: 1000, first_token: 2000, idle: 3000, total: 4000 },
      deployments: [{ provider: 'mock', upstream_model: 'gpt-4o-mini', weight: 2 }], weight: 3, accepts_prefix: true, prefix_style: 'prefix',
      semantic_cache: true, max_output_tokens: 256, fallbacks: ['gpt-4o-mini'],
    };
    const put = await call('PUT', '/v1/admin/models/full', fields);
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ id: 'full', object: 'model', provider: 'mock', ...fields, created_at: expect.stringMatching(/^\d{4}-/) });
    expect((await call('GET', '/v1/admin/models/full')).body).toEqual(put.body);
    expect((await call('GET', '/v1/admin/models')).body.data.find((m: any) => m.id === 'full')).toEqual(put.body);
    expect((await call('DELETE', '/v1/admin/models/full')).status).toBe(200);
  });

  it('a provider PUT answers every field, header values masked like api_key, and a later GET answers the same', async () => {
    expect((await call('POST', '/v1/admin/providers', { id: 'full', type: 'custom', endpoint: `${upstream.url}/v1`, api_key: 'sk-full-secret-abcd' })).status).toBe(201);
    const fields = {
      name: 'Full', status: 'active', models: ['gpt-4o'], quota_limit: 100, quota_period: 'monthly',
      timeouts: { connect: 1000, total: 4000 }, api_version: '2024-06-01', path: '/chat/{model}', accepts_prefix: true, prefix_style: 'continue_final_message',
      headers: { Authorization: 'Bearer upstream-header-secret-5678', 'X-Org': 'ab' },
    };
    const put = await call('PUT', '/v1/admin/providers/full', fields);
    expect(put.status).toBe(200);
    expect(put.body).toEqual({
      id: 'full', object: 'provider', type: 'custom', endpoint: `${upstream.url}/v1`, api_key: 'sk-…abcd', ...fields,
      headers: { Authorization: '…5678', 'X-Org': '…' }, quota_used: 0, quota_resets_at: expect.any(String), created_at: expect.stringMatching(/^\d{4}-/),
    });
    expect(JSON.stringify(put.body)).not.toContain('upstream-header-secret');
    expect((await call('GET', '/v1/admin/providers/full')).body).toEqual(put.body);
    expect((await call('GET', '/v1/admin/providers')).body.data.find((p: any) => p.id === 'full')).toEqual(put.body);
    // A client saving back what it read (masked key and header values) keeps the secrets.
    const { api_key, headers } = put.body;
    expect((await call('PUT', '/v1/admin/providers/full', { api_key, headers, name: 'Full again' })).status).toBe(200);
    expect(JSON.parse(await readFile(join(gw.dir, 'gateway.secrets.json'), 'utf8')).provider_full_api_key).toBe('sk-full-secret-abcd');
    expect(await readFile(gw.configFile, 'utf8')).toContain('Bearer upstream-header-secret-5678');
    expect((await call('GET', '/v1/admin/providers/full')).body).toEqual({ ...put.body, name: 'Full again' });
    // A new key replaces the secret; the YAML keeps its reference.
    expect((await call('PUT', '/v1/admin/providers/full', { api_key: 'sk-rotated-secret-wxyz' })).body.api_key).toBe('sk-…wxyz');
    expect(JSON.parse(await readFile(join(gw.dir, 'gateway.secrets.json'), 'utf8')).provider_full_api_key).toBe('sk-rotated-secret-wxyz');
    expect(await readFile(gw.configFile, 'utf8')).toContain('${secret:provider_full_api_key}');
    // `adapter` (custom: a plugin-registered wire format) is shown too.
    const adapter = await call('PUT', '/v1/admin/providers/full', { adapter: 'my-adapter' });
    expect(adapter.status).toBe(200);
    expect(adapter.body.adapter).toBe('my-adapter');
    expect((await call('DELETE', '/v1/admin/providers/full')).status).toBe(200);
  });

  it('masks credentials an endpoint URL carries (user info, key-like query values), and an echoed mask keeps them', async () => {
    const endpoint = `http://svc:p4ss-w0rd@${upstream.url.slice('http://'.length)}/v1?api_key=url-secret-1234&region=eu`;
    const created = await call('POST', '/v1/admin/providers', { id: 'in-url', type: 'compat', endpoint, api_key: 'sk-url-secret-abcd' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.endpoint).toBe(`http://svc:%E2%80%A6@${upstream.url.slice('http://'.length)}/v1?api_key=%E2%80%A6&region=eu`);
    expect(JSON.stringify(created.body)).not.toMatch(/p4ss-w0rd|url-secret-1234/);
    const model = await call('POST', '/v1/admin/models', { id: 'in-url-model', name: 'In URL', provider: 'in-url', endpoint });
    expect(model.status, JSON.stringify(model.body)).toBe(201);
    expect(JSON.stringify(model.body)).not.toMatch(/p4ss-w0rd|url-secret-1234/);
    // Saved back as read, the stored URLs stay whole.
    expect((await call('PUT', '/v1/admin/providers/in-url', { endpoint: created.body.endpoint, name: 'Again' })).status).toBe(200);
    expect((await call('PUT', '/v1/admin/models/in-url-model', { endpoint: model.body.endpoint, name: 'Again' })).status).toBe(200);
    const file = await readFile(gw.configFile, 'utf8');
    expect(file.split(endpoint).length).toBe(3);
    expect((await call('DELETE', '/v1/admin/models/in-url-model')).status).toBe(200);
    expect((await call('DELETE', '/v1/admin/providers/in-url')).status).toBe(200);
  });
});
