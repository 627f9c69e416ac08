/**
 * Access across instances: a key deleted or deactivated on one instance is refused on every
 * instance at once — by the time the change is answered, another instance sharing the Redis
 * already answers 401 — and a member never reaches another account's keys or /v1/admin.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisInstance, TEST_REDIS, type Instance } from '../_instances.ts';
import { api, DEMO_KEY, startMockUpstream, type MockUpstream } from '../_setup.ts';

const prefix = `test:access:${randomBytes(6).toString('hex')}:`;
let upstream: MockUpstream;
let a: Instance;
let b: Instance;

const chatOn = (on: Instance, key: string) =>
  fetch(`${on.url}/api/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  });

/** A new key of the demo account, created on A and already serving on B. */
async function keyServingOnB(): Promise<{ id: string; key: string }> {
  const created = await api(a, 'POST', '/v1/api-keys', { name: 'short-lived' }, DEMO_KEY);
  expect(created.status).toBe(201);
  await expect.poll(async () => (await chatOn(b, created.body.key)).status, { timeout: 3000, interval: 20 }).toBe(200);
  return created.body;
}

beforeAll(async () => {
  upstream = await startMockUpstream();
  const env = { MOCK_URL: `${upstream.url}/v1` };
  [a, b] = await Promise.all([startRedisInstance('management.yaml', TEST_REDIS, prefix, env), startRedisInstance('management.yaml', TEST_REDIS, prefix, env)]);
});
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await upstream?.close();
});

describe('revocation on every instance', () => {
  it.each([
    ['deleted', (id: string) => api(a, 'DELETE', `/v1/api-keys/${id}`, undefined, DEMO_KEY)],
    ['deactivated', (id: string) => api(a, 'PUT', `/v1/api-keys/${id}`, { status: 'inactive' }, DEMO_KEY)],
  ])('a key %s on A is refused on B as soon as A answers', async (_, revoke) => {
    for (let round = 0; round < 3; round++) {
      const { id, key } = await keyServingOnB();
      expect((await revoke(id)).status).toBe(200);
      const onB = await chatOn(b, key);
      expect(onB.status).toBe(401);
      expect((await onB.json()).error.code).toBe('invalid_api_key');
      expect((await chatOn(a, key)).status).toBe(401);
      // Management routes refuse it too.
      expect((await api(b, 'GET', '/v1/api-keys', undefined, key)).status).toBe(401);
    }
  });
});

describe('a member and other accounts', () => {
  it("cannot see, change, rotate or delete another account's key (404), nor reach /v1/admin (403)", async () => {
    const others = await api(a, 'POST', '/v1/api-keys', { name: 'other', account_id: 'other' });
    expect(others.status).toBe(201);
    const id = others.body.id as string;
    const attempts = [
      await api(a, 'GET', `/v1/api-keys/${id}`, undefined, DEMO_KEY),
      await api(a, 'PUT', `/v1/api-keys/${id}`, { name: 'mine' }, DEMO_KEY),
      await api(a, 'POST', `/v1/api-keys/${id}/rotate`, undefined, DEMO_KEY),
      await api(a, 'DELETE', `/v1/api-keys/${id}`, undefined, DEMO_KEY),
    ];
    for (const attempt of attempts) expect(attempt.body.error).toMatchObject({ type: 'not_found_error' });
    expect(attempts.map((r) => r.status)).toEqual([404, 404, 404, 404]);
    expect((await api(a, 'GET', '/v1/api-keys', undefined, DEMO_KEY)).body.data.map((k: { id: string }) => k.id)).not.toContain(id);
    // The other account's key is untouched and still serves.
    expect((await api(a, 'GET', `/v1/api-keys/${id}`)).body).toMatchObject({ name: 'other', status: 'active' });
    await expect.poll(async () => (await chatOn(b, others.body.key)).status, { timeout: 3000, interval: 20 }).toBe(200);
    for (const [method, path] of [['GET', '/v1/admin/providers'], ['POST', '/v1/admin/users'], ['PUT', '/v1/admin/groups/default'], ['DELETE', '/v1/admin/models/gpt-4o-mini'], ['GET', '/v1/admin/logs']]) {
      const res = await api(a, method!, path!, method === 'POST' || method === 'PUT' ? {} : undefined, DEMO_KEY);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.error).toMatchObject({ type: 'permission_error', code: 'admin_required' });
    }
  });
});
