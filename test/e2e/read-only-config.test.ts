/**
 * A config file mounted read-only (a Kubernetes ConfigMap, a `:ro` volume): management writes answer
 * 409 `config_read_only` with a message that says how to change it, never a 500, and nothing is lost
 * silently; reads, no-op changes and counter resets keep working. The filesystem is made read-only
 * for the config's directory by failing its writes with EROFS, as the kernel does (the tests run as
 * root, which a chmod would not stop); the container test (test/container) mounts a real `:ro` file.
 */
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

const readOnlyDirs = vi.hoisted(() => new Set<string>());

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  const erofs = (path: unknown) => Object.assign(new Error(`EROFS: read-only file system, '${String(path)}'`), { code: 'EROFS' });
  const inReadOnly = (path: unknown) => [...readOnlyDirs].some((dir) => String(path).startsWith(dir));
  const patched = {
    ...real,
    async access(path: Parameters<typeof real.access>[0], mode?: number) {
      if (mode !== undefined && mode & real.constants.W_OK && inReadOnly(path)) throw erofs(path);
      return real.access(path, mode);
    },
    async open(path: Parameters<typeof real.open>[0], flags?: string | number, mode?: number) {
      if (typeof flags === 'string' && /[wax+]/.test(flags) && inReadOnly(path)) throw erofs(path);
      return real.open(path, flags, mode);
    },
  };
  return { ...patched, default: patched };
});

const { readFile } = await import('node:fs/promises');
const { api, DEMO_KEY, startMockUpstream, startTestGateway } = await import('../_setup.ts');

let upstream: Awaited<ReturnType<typeof startMockUpstream>>;
let gw: Awaited<ReturnType<typeof startTestGateway>>;

beforeAll(async () => {
  upstream = await startMockUpstream();
  gw = await startTestGateway('management.yaml', { MOCK_URL: `${upstream.url}/v1` });
  readOnlyDirs.add(dirname(gw.configFile));
});
afterAll(async () => {
  await gw?.close();
  await upstream?.close();
});

describe('a read-only gateway.yaml', () => {
  it('refuses every kind of write with 409 config_read_only, saying how to change it, and leaves the file as it was', async () => {
    const before = await readFile(gw.configFile, 'utf8');
    for (const [method, path, body] of [
      ['POST', '/v1/api-keys', { name: 'x' }],
      ['POST', '/v1/admin/groups', { name: 'x' }],
      ['PUT', '/v1/admin/groups/default', { priority: 1 }],
      ['POST', '/v1/admin/providers', { name: 'Second', type: 'compat', endpoint: 'http://127.0.0.1:1/v1', api_key: 'sk-x', models: ['m'] }],
      ['DELETE', '/v1/admin/models/gpt-4o-mini', undefined],
    ] as const) {
      const res = await api(gw, method, path, body);
      expect(res.status, `${method} ${path}`).toBe(409);
      expect(res.body.error.code).toBe('config_read_only');
      expect(res.body.error.message).toMatch(/read-only/);
      expect(res.body.error.message).toMatch(/git/);
      expect(res.body.error.message).toMatch(/writable volume/);
    }
    expect(await readFile(gw.configFile, 'utf8')).toBe(before);
  });

  it('says why in the status: the file to an admin, its name alone to anyone else', async () => {
    const admin = (await api(gw, 'GET', '/v1/system/status')).body.management;
    expect(admin).toEqual({ writable: false, reason: expect.stringContaining(gw.configFile) });
    const member = (await api(gw, 'GET', '/v1/system/status', undefined, DEMO_KEY)).body.management;
    expect(member.writable).toBe(false);
    expect(member.reason).toContain('gateway.yaml');
    expect(member.reason).not.toContain(dirname(gw.configFile));
  });

  it('still answers reads, validation errors first, and a quota reset that leaves the file alone', async () => {
    expect((await api(gw, 'GET', '/v1/admin/groups')).status).toBe(200);
    expect((await api(gw, 'DELETE', '/v1/admin/groups/nope')).status).toBe(404);
    expect((await api(gw, 'PUT', '/v1/admin/groups/default', { quota_used: 0 })).status).toBe(200);
  });
});
