import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOidcAdapterFactory } from './oidc-adapter.ts';
import { legacyOidcKey, oidcKey } from './oidc-keys.ts';
import { LEGACY_MOVED_KEY, moveLegacyOidcEntries } from './oidc-legacy.ts';
import { createMemoryStore } from './memory.ts';
import { createRedisStore } from './redis.ts';
import type { StateStore } from './types.ts';

const suites: Array<[string, () => Promise<StateStore>]> = [
  ['memory', async () => createMemoryStore()],
  ['redis', () => createRedisStore(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { prefix: `gwtest-oidc-legacy-${randomBytes(4).toString('hex')}:` })],
];

const id = () => randomBytes(32).toString('base64url');

/** An entry as the adapter before hashed ids kept it: under the id in clear, jti inside, the clear key in its grant index. */
async function storeLegacy(store: StateStore, model: string, tokenId: string, payload: Record<string, unknown>) {
  const expiresAt = Date.now() + 60_000;
  await store.set(legacyOidcKey(model, tokenId), JSON.stringify({ payload: { jti: tokenId, ...payload }, expiresAt }), 60_000);
  if (typeof payload.grantId === 'string') {
    const indexKey = `gw:oidc:GrantIndex:${payload.grantId}`;
    const index = JSON.parse((await store.get(indexKey)) ?? '{"keys":[]}') as { keys: string[] };
    await store.set(indexKey, JSON.stringify({ keys: [...index.keys, legacyOidcKey(model, tokenId)], expiresAt }), 60_000);
  }
  if (model === 'Session') await store.set(`gw:oidc:SessionUid:${payload.uid}`, tokenId, 60_000);
}

describe.each(suites)('moving OAuth entries kept in clear, on the %s store', (_name, make) => {
  let store: StateStore;
  beforeAll(async () => {
    store = await make();
  });
  afterAll(async () => {
    // Nothing left behind under the test's prefix (the adapter's values are all plain ones).
    for (const key of await store.keys('gw:')) await store.del(key);
    await store.close();
  });

  it('moves every artefact to its hashed key once, cleans the lookups, and never revives a consumed copy', async () => {
    const adapter = createOidcAdapterFactory(store);
    const [access, refresh, session, consumedRefresh] = [id(), id(), id(), id()];
    await storeLegacy(store, 'AccessToken', access, { grantId: 'g1', accountId: 'root' });
    await storeLegacy(store, 'RefreshToken', refresh, { grantId: 'g1', accountId: 'root' });
    await storeLegacy(store, 'Session', session, { uid: 'u1', accountId: 'root' });
    // Moved on use and consumed meanwhile; an older copy in clear is left behind.
    await adapter('RefreshToken').upsert(consumedRefresh, { jti: consumedRefresh, grantId: 'g2', consumed: 1 }, 60);
    await storeLegacy(store, 'RefreshToken', consumedRefresh, { grantId: 'g2' });

    expect(await moveLegacyOidcEntries(store)).toBe(3);

    const remaining = await store.keys('gw:oidc:');
    const everything = (await Promise.all(remaining.map(async (key) => `${key}=${await store.get(key)}`))).join('\n');
    for (const secret of [access, refresh, session, consumedRefresh]) expect(everything).not.toContain(secret);
    expect(await adapter('AccessToken').find(access)).toMatchObject({ jti: access, accountId: 'root' });
    expect(await adapter('Session').findByUid('u1')).toMatchObject({ accountId: 'root' });
    expect(await store.get('gw:oidc:SessionUid:u1')).toBe(oidcKey('Session', session));
    expect(await adapter('RefreshToken').find(consumedRefresh)).toMatchObject({ consumed: 1 });
    expect(await store.get(LEGACY_MOVED_KEY)).not.toBeNull();

    await adapter('AccessToken').revokeByGrantId('g1');
    expect(await adapter('AccessToken').find(access)).toBeUndefined();
    expect(await adapter('RefreshToken').find(refresh)).toBeUndefined();
  });

  it('runs once per store; what an older instance writes later still moves on use', async () => {
    const late = id();
    await storeLegacy(store, 'AccessToken', late, { grantId: 'g3' });
    expect(await moveLegacyOidcEntries(store)).toBe(0);
    expect(await store.get(legacyOidcKey('AccessToken', late))).not.toBeNull();
    expect(await createOidcAdapterFactory(store)('AccessToken').find(late)).toMatchObject({ jti: late });
    expect(await store.get(legacyOidcKey('AccessToken', late))).toBeNull();
  });
});
