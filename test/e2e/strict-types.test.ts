/**
 * Wrong types are refused, never coerced or defaulted: on every write route, a field of the wrong
 * type answers 400 in the error shape with `param` naming the field, and nothing is written.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { api, DEMO_KEY, MASTER_KEY, useGateway } from '../_setup.ts';

const state = useGateway('management.yaml');

const provider = { name: 'P', type: 'compat', endpoint: 'http://127.0.0.1:9/v1' };
const user = { email: 'new@example.com', password: 'long enough password' };

/** [method, path, body, the field named, key] */
const CASES: [string, string, unknown, string, string?][] = [
  ['POST', '/v1/api-keys', { name: 42 }, 'name', DEMO_KEY],
  ['POST', '/v1/api-keys', { name: null }, 'name', DEMO_KEY],
  ['POST', '/v1/api-keys', { name: ['a'] }, 'name', DEMO_KEY],
  ['POST', '/v1/api-keys', { status: true }, 'status', DEMO_KEY],
  ['POST', '/v1/api-keys', { status: null }, 'status', DEMO_KEY],
  ['PUT', '/v1/admin/providers/mock', { endpoint: null }, 'endpoint'],
  ['PUT', '/v1/admin/providers/mock', { type: null }, 'type'],
  ['PUT', '/v1/admin/groups/default', { models: 'all' }, 'models'],
  ['POST', '/v1/api-keys', { permissions: { rate_limit: '5' } }, 'permissions.rate_limit', DEMO_KEY],
  ['POST', '/v1/api-keys', { permissions: { models: 'gpt-4o' } }, 'permissions.models', DEMO_KEY],
  ['POST', '/v1/api-keys', { permissions: { quota_limit: '10' } }, 'permissions.quota_limit', DEMO_KEY],
  ['POST', '/v1/api-keys', { permissions: { quota_period: 1 } }, 'permissions.quota_period', DEMO_KEY],
  ['POST', '/v1/api-keys', { permissions: 'all' }, 'permissions', DEMO_KEY],
  ['POST', '/v1/api-keys', { account_id: 5 }, 'account_id'],
  ['PUT', '/v1/api-keys/demo-key', { name: 42 }, 'name', DEMO_KEY],
  ['PUT', '/v1/api-keys/demo-key', { status: 0 }, 'status', DEMO_KEY],
  ['PUT', '/v1/api-keys/demo-key', { permissions: { rate_limit: 1.5 } }, 'permissions.rate_limit', DEMO_KEY],
  ['POST', '/v1/admin/providers', { ...provider, id: 42 }, 'id'],
  ['POST', '/v1/admin/providers', { ...provider, name: 7 }, 'name'],
  ['POST', '/v1/admin/providers', { ...provider, quota_limit: '5' }, 'quota_limit'],
  ['POST', '/v1/admin/providers', { ...provider, quota_period: true }, 'quota_period'],
  ['POST', '/v1/admin/providers', { ...provider, models: [1] }, 'models.0'],
  ['PUT', '/v1/admin/providers/mock', { status: 1 }, 'status'],
  ['PUT', '/v1/admin/providers/mock', { quota_limit: '1' }, 'quota_limit'],
  ['PUT', '/v1/admin/providers/mock', { quota_used: '0' }, 'quota_used'],
  ['POST', '/v1/admin/groups', { id: 42, name: 'G' }, 'id'],
  ['POST', '/v1/admin/groups', { name: 42 }, 'name'],
  ['POST', '/v1/admin/groups', { name: 'G', priority: '1' }, 'priority'],
  ['POST', '/v1/admin/groups', { name: 'G', models: 'gpt-4o' }, 'models'],
  ['PUT', '/v1/admin/groups/default', { quota_limit: true }, 'quota_limit'],
  ['POST', '/v1/admin/models', { id: 42, provider: 'mock' }, 'id'],
  ['POST', '/v1/admin/models', { id: 'm', provider: 'mock', context_length: '1000' }, 'context_length'],
  ['POST', '/v1/admin/models', { id: 'm', provider: 7 }, 'provider'],
  ['PUT', '/v1/admin/models/gpt-4o-mini', { provider: 7 }, 'provider'],
  ['PUT', '/v1/admin/models/gpt-4o-mini', { input_price: '0.1' }, 'input_price'],
  ['POST', '/v1/admin/users', { ...user, id: 42 }, 'id'],
  ['POST', '/v1/admin/users', { ...user, email: 42 }, 'email'],
  ['POST', '/v1/admin/users', { ...user, name: 5 }, 'name'],
  ['POST', '/v1/admin/users', { ...user, role: 1 }, 'role'],
  ['POST', '/v1/admin/users', { ...user, group: 42 }, 'group'],
  ['POST', '/v1/admin/users', { ...user, password: 12345678901 }, 'password'],
  ['PUT', '/v1/admin/users/demo', { group: 42 }, 'group'],
  ['PUT', '/v1/admin/users/demo', { name: false }, 'name'],
  ['PUT', '/v1/settings', { account: { timezone: 8 } }, 'account.timezone', DEMO_KEY],
  ['PUT', '/v1/settings', { security: { request_logging: 'true' } }, 'security.request_logging', DEMO_KEY],
  ['PUT', '/v1/settings', { notifications: { balance_threshold: '10' } }, 'notifications.balance_threshold', DEMO_KEY],
  ['PUT', '/v1/settings', { api: 'x' }, 'api', DEMO_KEY],
  ['POST', '/v1/security/send-code', { type: 1 }, 'type', DEMO_KEY],
  ['POST', '/v1/security/send-code', { type: 'email', recipient: 5 }, 'recipient', DEMO_KEY],
  ['POST', '/v1/security/verify', { type: 'email', code: 123456 }, 'code', DEMO_KEY],
];

describe('wrong types on write routes', () => {
  it.each(CASES)('%s %s %j is 400 naming %s, and writes nothing', async (method, path, body, field, key = MASTER_KEY) => {
    const before = await readFile(state.gw.configFile, 'utf8');
    const settingsBefore = (await api(state.gw, 'GET', '/v1/settings', undefined, DEMO_KEY)).body;
    const res = await api(state.gw, method, path, body, key);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', param: field });
    // refused for its type, not for something found later (an unknown code, a taken email...)
    expect(['invalid_value', 'invalid_body']).toContain(res.body.error.code);
    expect(res.body.error.message).toEqual(expect.any(String));
    expect(await readFile(state.gw.configFile, 'utf8')).toBe(before);
    expect((await api(state.gw, 'GET', '/v1/settings', undefined, DEMO_KEY)).body).toEqual(settingsBefore);
  });
});
