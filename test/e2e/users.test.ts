/**
 * Accounts over their whole life, through the users API and the OAuth server: an account id is
 * given once (a deleted account's call log, settings and tokens never reach whoever comes next,
 * README "Management API"), and an email belongs to one account.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDocument, type YAMLMap, type YAMLSeq } from 'yaml';
import { freePort } from '../_process.ts';
import { api, startMockUpstream, startTestGateway, waitForLogRecord, type MockUpstream, type TestGateway } from '../_setup.ts';
import { codeFor, DASHBOARD, REDIRECT, tokenRequest } from '../oauth-browser.ts';

let mock: MockUpstream;
let gw: TestGateway & { base: string };

beforeAll(async () => {
  mock = await startMockUpstream();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  gw = Object.assign(await startTestGateway('users.yaml', { PORT: String(port), GATEWAY_BASE_URL: base, MOCK_URL: `${mock.url}/v1` }), { base });
});
afterAll(async () => {
  await gw?.close();
  await mock?.close();
});

const SCOPES = 'read:api write:api read:user write:user';

/** Creates an account through the API; answers its id. */
async function createUser(fields: Record<string, unknown>): Promise<string> {
  const created = await api(gw, 'POST', '/v1/admin/users', { role: 'member', group: 'default', ...fields });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id;
}

/** An access and a refresh token of `user` through the authorization-code flow. */
async function tokensOf(user: { email: string; password: string }) {
  const code = await codeFor(gw.base, SCOPES, user);
  const token = await tokenRequest(gw.base, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT }, DASHBOARD);
  expect(token.status, JSON.stringify(token.body)).toBe(200);
  return { access: token.body.access_token as string, refresh: token.body.refresh_token as string };
}

/** A key of `account`, one logged chat call with it, then the key deleted again. */
async function callOnce(account: string): Promise<void> {
  const key = await api(gw, 'POST', '/v1/api-keys', { name: `${account} key`, account_id: account });
  const response = await fetch(`${gw.url}/api/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key.body.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `the private prompt of ${account}` }] }),
  });
  expect(response.status).toBe(200);
  await waitForLogRecord(gw, response.headers.get('x-request-id')!);
  expect((await api(gw, 'DELETE', `/v1/api-keys/${key.body.id}`)).status).toBe(200);
}

const refreshWith = (refresh: string) => tokenRequest(gw.base, { grant_type: 'refresh_token', refresh_token: refresh }, DASHBOARD);

describe('account ids are never given twice', () => {
  it("gives a new account of the same name another id, so it sees none of the deleted one's logs, settings or tokens", async () => {
    const dave = { email: 'dave@example.com', password: 'dave password 1' };
    expect(await createUser({ email: dave.email, name: 'Dave', password: dave.password })).toBe('dave');
    const tokens = await tokensOf(dave);
    await callOnce('dave');
    const settings = await api(gw, 'PUT', '/v1/settings', { account: { timezone: 'Asia/Tokyo' } }, tokens.access);
    expect(settings.status).toBe(200);
    expect((await api(gw, 'DELETE', '/v1/admin/users/dave')).body).toEqual({ id: 'dave', object: 'user', deleted: true });

    const next = await createUser({ email: 'dave@other.example', name: 'dave', password: 'other password 2' });
    expect(next).toBe('dave-2');
    const explicit = await api(gw, 'POST', '/v1/admin/users', { id: 'dave', email: 'dave3@other.example', name: 'Dave', password: 'other password 3', role: 'member' });
    expect(explicit.status).toBe(409);
    expect(explicit.body.error).toMatchObject({ type: 'invalid_request_error', code: 'account_id_retired' });
    expect((await api(gw, 'GET', '/v1/admin/users/dave')).status).toBe(404);

    const key = await api(gw, 'POST', '/v1/api-keys', { name: 'next key', account_id: next });
    expect((await api(gw, 'GET', '/v1/logs', undefined, key.body.key)).body.meta.total).toBe(0);
    expect((await api(gw, 'GET', '/v1/settings', undefined, key.body.key)).body.account.timezone).toBe('UTC');
    expect((await api(gw, 'GET', '/v1/settings', undefined, tokens.access)).status).toBe(401);
    expect((await refreshWith(tokens.refresh)).body.error).toBe('invalid_grant');
    await api(gw, 'DELETE', `/v1/api-keys/${key.body.id}`);
  });

  it('does not give an id the call log names again, tombstone or not (accounts deleted before there were tombstones)', async () => {
    expect(await createUser({ email: 'erik@example.com', name: 'Erik', password: 'erik password 1' })).toBe('erik');
    await callOnce('erik');
    expect((await api(gw, 'DELETE', '/v1/admin/users/erik')).status).toBe(200);
    expect(await gw.gateway.runtime.store.get('gw:retired:account:erik')).not.toBeNull();
    await gw.gateway.runtime.store.del('gw:retired:account:erik');
    expect(await createUser({ email: 'erik@other.example', name: 'Erik', password: 'erik password 2' })).toBe('erik-2');
    const explicit = await api(gw, 'POST', '/v1/admin/users', { id: 'erik', email: 'erik3@other.example', name: 'Erik', password: 'erik password 3', role: 'member' });
    expect(explicit.body.error?.code).toBe('account_id_retired');
  });

  it('refuses the tokens of a deleted account even when something gives its id to an account again', async () => {
    const fay = { email: 'fay@example.com', password: 'fay password 1' };
    expect(await createUser({ email: fay.email, name: 'Fay', password: fay.password })).toBe('fay');
    const tokens = await tokensOf(fay);
    expect((await api(gw, 'GET', '/v1/settings', undefined, tokens.access)).status).toBe(200);
    expect((await api(gw, 'DELETE', '/v1/admin/users/fay')).status).toBe(200);
    // As a hand edit of the file, or a store that lost the tombstone, could: the id named again,
    // a second later (created_at and token times have whole seconds).
    await new Promise((resolve) => setTimeout(resolve, 1100));
    for (const left of ['gw:retired:account:fay', 'gw:settings:fay', 'gw:sec:status:fay']) await gw.gateway.runtime.store.del(left);
    expect(await createUser({ id: 'fay', email: 'fay@other.example', name: 'Fay', password: 'fay password 2' })).toBe('fay');
    expect((await api(gw, 'GET', '/v1/settings', undefined, tokens.access)).status).toBe(401);
    expect((await refreshWith(tokens.refresh)).body.error).toBe('invalid_grant');
    // The new account's own sign-in works.
    const own = await tokensOf({ email: 'fay@other.example', password: 'fay password 2' });
    expect((await api(gw, 'GET', '/v1/settings', undefined, own.access)).status).toBe(200);
  });
});

describe('account ids removed outside the users API', () => {
  it('retires the id of an account removed by a hand edit of gateway.yaml, at the reload', async () => {
    expect(await createUser({ email: 'gus@example.com', name: 'Gus', password: 'gus password 1' })).toBe('gus');
    const file = parseDocument(await readFile(gw.configFile, 'utf8'));
    const accounts = file.get('accounts') as YAMLSeq<YAMLMap>;
    accounts.items = accounts.items.filter((account) => account.get('id') !== 'gus');
    await writeFile(gw.configFile, file.toString());
    expect((await gw.gateway.config.reload()).ok).toBe(true);
    await expect.poll(() => gw.gateway.runtime.store.get('gw:retired:account:gus')).not.toBeNull();
    const explicit = await api(gw, 'POST', '/v1/admin/users', { id: 'gus', email: 'gus2@example.com', name: 'Gus', password: 'gus password 2', role: 'member' });
    expect(explicit.body.error?.code).toBe('account_id_retired');
  });

  it('does not give an id that stored settings or two-factor state still name (removed while the gateway was down)', async () => {
    for (const [id, key] of [['hana', 'gw:settings:hana'], ['ivan', 'gw:sec:status:ivan']]) {
      await gw.gateway.runtime.store.set(key, '{}');
      const explicit = await api(gw, 'POST', '/v1/admin/users', { id, email: `${id}@example.com`, name: id, password: `${id} password 1`, role: 'member' });
      expect(explicit.body.error?.code, id).toBe('account_id_retired');
      expect(await createUser({ email: `${id}.2@example.com`, name: id, password: `${id} password 2` })).toBe(`${id}-2`);
    }
  });
});

describe('an email belongs to one account', () => {
  it("refuses to change an account's email to another account's, in any case, like a create", async () => {
    const put = await api(gw, 'PUT', '/v1/admin/users/bob', { email: 'ALICE@example.com' });
    expect(put.status).toBe(409);
    expect(put.body.error).toMatchObject({ type: 'invalid_request_error', code: 'already_exists' });
    const post = await api(gw, 'POST', '/v1/admin/users', { email: 'Alice@Example.com', name: 'Another', password: 'long enough 1', role: 'member' });
    expect(post.status).toBe(409);
    expect(post.body.error.code).toBe('already_exists');
    expect((await api(gw, 'GET', '/v1/admin/users/bob')).body.email).toBe('bob@example.com');
    // Its own email, in another case, is no conflict.
    expect((await api(gw, 'PUT', '/v1/admin/users/bob', { email: 'Bob@Example.com' })).body).toMatchObject({ id: 'bob', email: 'Bob@Example.com' });
  });
});
