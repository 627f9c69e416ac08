import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOidcAdapterFactory, holdsOidcArtefact } from './oidc-adapter.ts';
import { legacyOidcKey, oidcKey } from './oidc-keys.ts';
import { createMemoryStore } from './memory.ts';
import { createRedisStore } from './redis.ts';
import type { StateStore } from './types.ts';

const suites: Array<[string, () => Promise<StateStore>]> = [
  ['memory', async () => createMemoryStore()],
  ['redis', () => createRedisStore(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { prefix: `gwtest-oidc-${randomBytes(4).toString('hex')}:` })],
];

/** Every key and value the adapter wrote, to look for secrets in. */
function recording(inner: StateStore) {
  const written: string[] = [];
  const store: StateStore = Object.assign(Object.create(inner) as StateStore, {
    set: (key: string, value: string, ttlMs?: number) => (written.push(key, value), inner.set(key, value, ttlMs)),
  });
  return { store, written };
}

/** What the adapter before hashed ids stored: the entry under the id in clear, jti in the payload, the clear key in the grant index. */
async function storeLegacy(store: StateStore, model: string, id: string, payload: Record<string, unknown>, ttlMs: number) {
  const expiresAt = Date.now() + ttlMs;
  await store.set(legacyOidcKey(model, id), JSON.stringify({ payload: { jti: id, ...payload }, expiresAt }), ttlMs);
  if (typeof payload.grantId === 'string') {
    await store.set(`gw:oidc:GrantIndex:${payload.grantId}`, JSON.stringify({ keys: [legacyOidcKey(model, id)], expiresAt }), ttlMs);
  }
  if (model === 'Session' && typeof payload.uid === 'string') await store.set(`gw:oidc:SessionUid:${payload.uid}`, id, ttlMs);
}

describe.each(suites)('oidc-provider adapter on the %s store', (_name, make) => {
  let store: StateStore;
  let written: string[];
  let adapter: ReturnType<typeof createOidcAdapterFactory>;
  beforeAll(async () => {
    ({ store, written } = recording(await make()));
    adapter = createOidcAdapterFactory(store);
  });
  afterAll(async () => {
    // Nothing left behind under the test's prefix (the adapter's values are all plain ones).
    for (const key of await store.keys('gw:')) await store.del(key);
    await store.close();
  });

  it('stores payloads under gw:oidc:<Model>:sha256:<hash of the id> and finds them, jti given back', async () => {
    const codes = adapter('AuthorizationCode');
    await codes.upsert('c1', { jti: 'c1', grantId: 'g1', accountId: 'alice' }, 60);
    expect(await codes.find('c1')).toEqual({ jti: 'c1', grantId: 'g1', accountId: 'alice' });
    expect(oidcKey('AuthorizationCode', 'c1')).toBe(`gw:oidc:AuthorizationCode:sha256:${createHash('sha256').update('c1').digest('hex')}`);
    expect(await store.get(oidcKey('AuthorizationCode', 'c1'))).toContain('"accountId":"alice"');
    expect(await store.get('gw:oidc:AuthorizationCode:c1')).toBeNull();
    expect(await adapter('AccessToken').find('c1')).toBeUndefined();
  });

  it('writes no token, code or session id in clear, in any key or value, indexes included', async () => {
    const token = `at-${randomBytes(16).toString('hex')}`;
    const refresh = `rt-${randomBytes(16).toString('hex')}`;
    const session = `se-${randomBytes(16).toString('hex')}`;
    const userCode = `UC${randomBytes(4).toString('hex')}`;
    const from = written.length;
    await adapter('AccessToken').upsert(token, { jti: token, grantId: 'g-clear', accountId: 'alice' }, 60);
    await adapter('RefreshToken').upsert(refresh, { jti: refresh, grantId: 'g-clear', accountId: 'alice' }, 60);
    await adapter('Session').upsert(session, { jti: session, uid: 'u-clear', accountId: 'alice' }, 60);
    await adapter('Interaction').upsert('i-clear', { jti: 'i-clear', session: { uid: 'u-clear', cookie: session, accountId: 'alice' } }, 60);
    await adapter('DeviceCode').upsert('d-clear', { jti: 'd-clear', userCode, grantId: 'g-clear' }, 60);
    await adapter('RefreshToken').consume(refresh);
    const stored = written.slice(from).join('\n');
    // The user code stays in its device code's payload: it only lets a signed-in user approve a device.
    for (const secret of [token, refresh, session, 'i-clear', 'd-clear']) expect(stored).not.toContain(secret);
    expect(stored).not.toContain(`UserCode:${userCode}`);

    expect(await adapter('AccessToken').find(token)).toMatchObject({ jti: token, accountId: 'alice' });
    expect(await adapter('RefreshToken').find(refresh)).toMatchObject({ jti: refresh, consumed: expect.any(Number) });
    expect(await adapter('Session').findByUid('u-clear')).toMatchObject({ uid: 'u-clear', accountId: 'alice' });
    expect(await adapter('Interaction').find('i-clear')).toEqual({ jti: 'i-clear', session: { uid: 'u-clear', accountId: 'alice' } });
    expect(await adapter('DeviceCode').findByUserCode(userCode)).toMatchObject({ userCode, grantId: 'g-clear' });
    expect(await holdsOidcArtefact(store, 'AccessToken', token)).toBe(true);
    await adapter('AccessToken').revokeByGrantId('g-clear');
    expect(await adapter('AccessToken').find(token)).toBeUndefined();
    expect(await adapter('RefreshToken').find(refresh)).toBeUndefined();
    expect(await holdsOidcArtefact(store, 'AccessToken', token)).toBe(false);
  });

  it('honours a token stored in clear by an earlier version, moves it to the hashed key and off the grant index', async () => {
    const token = `old-${randomBytes(16).toString('hex')}`;
    await storeLegacy(store, 'AccessToken', token, { grantId: 'g-old', accountId: 'root' }, 60_000);
    expect(await holdsOidcArtefact(store, 'AccessToken', token)).toBe(true);
    expect(await adapter('AccessToken').find(token)).toMatchObject({ jti: token, accountId: 'root' });
    expect(await store.get(legacyOidcKey('AccessToken', token))).toBeNull();
    const moved = await store.get(oidcKey('AccessToken', token));
    expect(moved).toContain('"accountId":"root"');
    expect(moved).not.toContain(token);
    const index = (await store.get('gw:oidc:GrantIndex:g-old'))!;
    expect(index).not.toContain(token);
    expect(JSON.parse(index).keys).toEqual([oidcKey('AccessToken', token)]);
    // Found again under its hashed key; revoking its grant still removes it.
    expect(await adapter('AccessToken').find(token)).toMatchObject({ jti: token });
    await adapter('AccessToken').revokeByGrantId('g-old');
    expect(await adapter('AccessToken').find(token)).toBeUndefined();
  });

  it('consumes, destroys and finds by uid what an earlier version stored in clear', async () => {
    const refresh = `old-${randomBytes(16).toString('hex')}`;
    await storeLegacy(store, 'RefreshToken', refresh, { grantId: 'g-old2' }, 60_000);
    await adapter('RefreshToken').consume(refresh);
    expect(await store.get(legacyOidcKey('RefreshToken', refresh))).toBeNull();
    expect(await adapter('RefreshToken').find(refresh)).toMatchObject({ jti: refresh, consumed: expect.any(Number) });

    const session = `old-${randomBytes(16).toString('hex')}`;
    await storeLegacy(store, 'Session', session, { uid: 'u-old', accountId: 'alice' }, 60_000);
    expect(await adapter('Session').findByUid('u-old')).toMatchObject({ jti: session, accountId: 'alice' });
    expect(await store.get('gw:oidc:SessionUid:u-old')).toBe(oidcKey('Session', session));
    expect(await adapter('Session').findByUid('u-old')).toMatchObject({ accountId: 'alice' });

    const gone = `old-${randomBytes(16).toString('hex')}`;
    await storeLegacy(store, 'AccessToken', gone, { grantId: 'g-old3' }, 60_000);
    await adapter('AccessToken').destroy(gone);
    expect(await store.get(legacyOidcKey('AccessToken', gone))).toBeNull();
    expect(await adapter('AccessToken').find(gone)).toBeUndefined();
  });

  it('marks a payload consumed and keeps it', async () => {
    const codes = adapter('AuthorizationCode');
    await codes.upsert('c2', { jti: 'c2', grantId: 'g2' }, 60);
    await codes.consume('c2');
    const found = await codes.find('c2');
    expect(typeof found?.consumed).toBe('number');
  });

  it('finds sessions by uid and interactions by user code, and destroy clears the lookups', async () => {
    const sessions = adapter('Session');
    await sessions.upsert('s1', { uid: 'u1', accountId: 'alice' }, 60);
    expect(await sessions.findByUid('u1')).toMatchObject({ accountId: 'alice' });
    await sessions.destroy('s1');
    expect(await sessions.find('s1')).toBeUndefined();
    expect(await sessions.findByUid('u1')).toBeUndefined();

    const device = adapter('DeviceCode');
    await device.upsert('d1', { userCode: 'ABCD-EFGH', grantId: 'g9' }, 60);
    expect(await device.findByUserCode('ABCD-EFGH')).toMatchObject({ userCode: 'ABCD-EFGH' });
  });

  it('revokes every artefact of a grant, across models', async () => {
    await adapter('AccessToken').upsert('a3', { grantId: 'g3' }, 60);
    await adapter('RefreshToken').upsert('r3', { grantId: 'g3' }, 600);
    await adapter('AccessToken').upsert('a4', { grantId: 'g4' }, 60);
    await adapter('AccessToken').revokeByGrantId('g3');
    expect(await adapter('AccessToken').find('a3')).toBeUndefined();
    expect(await adapter('RefreshToken').find('r3')).toBeUndefined();
    expect(await adapter('AccessToken').find('a4')).toEqual({ grantId: 'g4', jti: 'a4' });
  });

  it('lets payloads expire with their lifetime', async () => {
    const tokens = adapter('AccessToken');
    await tokens.upsert('short', { grantId: 'g5' }, 1);
    expect(await tokens.find('short')).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await tokens.find('short')).toBeUndefined();
  });
});
