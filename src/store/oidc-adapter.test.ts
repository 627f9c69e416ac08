import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOidcAdapterFactory } from './oidc-adapter.ts';
import { createMemoryStore } from './memory.ts';
import { createRedisStore } from './redis.ts';
import type { StateStore } from './types.ts';

const suites: Array<[string, () => Promise<StateStore>]> = [
  ['memory', async () => createMemoryStore()],
  ['redis', () => createRedisStore(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { prefix: `gwtest-oidc-${randomBytes(4).toString('hex')}:` })],
];

describe.each(suites)('oidc-provider adapter on the %s store', (_name, make) => {
  let store: StateStore;
  let adapter: ReturnType<typeof createOidcAdapterFactory>;
  beforeAll(async () => {
    store = await make();
    adapter = createOidcAdapterFactory(store);
  });
  afterAll(async () => {
    await store.close();
  });

  it('stores payloads under gw:oidc:<Model>:<id> and finds them', async () => {
    const codes = adapter('AuthorizationCode');
    await codes.upsert('c1', { jti: 'c1', grantId: 'g1', accountId: 'alice' }, 60);
    expect(await codes.find('c1')).toEqual({ jti: 'c1', grantId: 'g1', accountId: 'alice' });
    expect(await store.get('gw:oidc:AuthorizationCode:c1')).toContain('"accountId":"alice"');
    expect(await adapter('AccessToken').find('c1')).toBeUndefined();
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
    expect(await adapter('AccessToken').find('a4')).toEqual({ grantId: 'g4' });
  });

  it('lets payloads expire with their lifetime', async () => {
    const tokens = adapter('AccessToken');
    await tokens.upsert('short', { grantId: 'g5' }, 1);
    expect(await tokens.find('short')).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await tokens.find('short')).toBeUndefined();
  });
});
