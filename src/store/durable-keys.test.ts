import { describe, expect, it } from 'vitest';
import { settingsKey } from '../features/settings/service.ts';
import { statusKey } from '../features/security/state.ts';
import { retiredAccountKey } from '../features/admin/account-ids.ts';
import { isDurableKey } from './durable-keys.ts';
import { createMemoryStore } from './memory.ts';
import { StoreAdapter } from './oidc-adapter.ts';

describe('durable keys', () => {
  it('cover the keys their owners build', async () => {
    expect(isDurableKey(settingsKey('alice'))).toBe(true);
    expect(isDurableKey(statusKey('alice'))).toBe(true);
    expect(isDurableKey(retiredAccountKey('alice'))).toBe(true);
    const store = createMemoryStore();
    const written: string[] = [];
    const set = store.set.bind(store);
    store.set = (key, value, ttl) => (written.push(key), set(key, value, ttl));
    await new StoreAdapter('RefreshToken', store).upsert('r1', { grantId: 'g1' } as never, 60);
    expect(written.length).toBeGreaterThan(0);
    expect(written.every(isDurableKey)).toBe(true);
    await store.close();
  });

  it('leave cache-like values to the bounded cache', () => {
    for (const key of ['gw:cache:abc', 'gw:rl:k1:60000', 'gw:quota:g', 'gw:responses:resp_1', 'gw:settingsX']) expect(isDurableKey(key)).toBe(false);
  });
});
