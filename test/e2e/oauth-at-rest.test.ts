/**
 * OAuth secrets at rest: after a sign-in, a code exchange and a refresh, nothing the gateway keeps
 * (every Redis key and value; every file of the data directory on the embedded store) holds the
 * code, an access or refresh token or the session cookie in clear. The tokens still work,
 * revocation still works, and a token an earlier version stored under its id in clear is moved
 * to the hashed form at the first start (or, written later by an older instance, on first use).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../_process.ts';
import type { TestGateway } from '../_setup.ts';
import { authorize, authorizeUrl, bearer, DASHBOARD, REDIRECT, ROOT, startOAuthGateway, tokenRequest } from '../oauth-browser.ts';
import { legacyOidcKey, oidcKey } from '../../src/store/oidc-keys.ts';
import { LEGACY_MOVED_KEY } from '../../src/store/oidc-legacy.ts';

type Gateway = TestGateway & { base: string };

interface Issued {
  code: string;
  session: string;
  access: string;
  refresh: string;
}

/** ROOT signs in (read:user), the code is exchanged: everything a browser and a client then hold. */
async function signIn(base: string): Promise<Issued> {
  const flow = await authorize(authorizeUrl(base, { scope: 'read:user', state: randomBytes(8).toString('hex') }), ROOT);
  expect(flow.callback, flow.last.body).not.toBeNull();
  const code = flow.callback!.searchParams.get('code')!;
  const session = flow.browser.cookies.get('_session')!;
  expect(session).toMatch(/^[A-Za-z0-9_-]{10,}$/);
  const token = await tokenRequest(base, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT }, DASHBOARD);
  expect(token.status, JSON.stringify(token.body)).toBe(200);
  return { code, session, access: token.body.access_token as string, refresh: token.body.refresh_token as string };
}

async function refresh(base: string, refreshToken: string) {
  const token = await tokenRequest(base, { grant_type: 'refresh_token', refresh_token: refreshToken }, DASHBOARD);
  expect(token.status, JSON.stringify(token.body)).toBe(200);
  return { access: token.body.access_token as string, refresh: token.body.refresh_token as string };
}

const adminUsers = async (base: string, token: string) => (await fetch(`${base}/v1/admin/users`, { headers: bearer(token) })).status;

async function revoke(base: string, token: string) {
  const basic = Buffer.from(`${DASHBOARD.id}:${DASHBOARD.secret}`).toString('base64');
  const response = await fetch(`${base}/oauth/token/revocation`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` },
    body: new URLSearchParams({ token }).toString(),
  });
  expect(response.status).toBe(200);
}

/** An opaque token id as oidc-provider makes them (43 base64url characters). */
const newTokenId = () => randomBytes(32).toString('base64url');

/** An envelope of the earlier form: the payload with its `jti`, to be stored under the id in clear. */
function legacyEnvelope(stored: string, id: string): { value: string; expiresAt: number } {
  const envelope = JSON.parse(stored) as { payload: Record<string, unknown>; expiresAt: number };
  return { value: JSON.stringify({ payload: { ...envelope.payload, jti: id }, expiresAt: envelope.expiresAt }), expiresAt: envelope.expiresAt };
}

function expectNoneIn(haystack: string, secrets: Record<string, string>) {
  for (const [name, secret] of Object.entries(secrets)) expect(haystack.includes(secret), `${name} found at rest`).toBe(false);
}

describe('OAuth secrets at rest on Redis', () => {
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefix = `gwtest-oauth-rest-${randomBytes(4).toString('hex')}:`;
  let gw: Gateway;
  let redis: Redis;
  let dataDir: string;

  /** Every key under the test's prefix and everything it holds, whatever its type. */
  async function dump(): Promise<string> {
    const parts: string[] = [];
    for (const key of await redis.keys(`${prefix}*`)) {
      const type = await redis.type(key);
      parts.push(key);
      if (type === 'string') parts.push((await redis.get(key)) ?? '');
      else if (type === 'hash') parts.push(JSON.stringify(await redis.hgetall(key)));
      else if (type === 'zset') parts.push(...(await redis.zrange(key, 0, -1)));
      else if (type === 'list') parts.push(...(await redis.lrange(key, 0, -1)));
      else if (type === 'set') parts.push(...(await redis.smembers(key)));
      else parts.push(JSON.stringify(await redis.call('DUMP', key)));
    }
    return parts.join('\n');
  }

  /** Stores `id` as the earlier version did, copying the stored payload of `like` (same model). */
  async function storeLegacy(model: string, like: string, id: string): Promise<void> {
    const { value, expiresAt } = legacyEnvelope((await redis.get(prefix + oidcKey(model, like)))!, id);
    await redis.set(prefix + legacyOidcKey(model, id), value, 'PX', expiresAt - Date.now());
    const payload = JSON.parse(value).payload as { grantId: string };
    const indexKey = `${prefix}gw:oidc:GrantIndex:${payload.grantId}`;
    const index = JSON.parse((await redis.get(indexKey))!) as { keys: string[] };
    index.keys.push(legacyOidcKey(model, id));
    await redis.set(indexKey, JSON.stringify(index), 'KEEPTTL');
  }

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'gw-oauth-rest-'));
    gw = await startOAuthGateway({ REDIS_URL: redisUrl, GATEWAY_REDIS_PREFIX: prefix, GATEWAY_DATA_DIR: dataDir });
    redis = new Redis(redisUrl);
  });
  afterAll(async () => {
    await gw?.close();
    if (redis) {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
    }
    await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps no code, token or session id in any key or value; the tokens work and revoke', async () => {
    expect(gw.gateway.runtime.store.kind).toBe('redis');
    const first = await signIn(gw.base);
    expect(await adminUsers(gw.base, first.access)).toBe(200);
    const second = await refresh(gw.base, first.refresh);
    expect(await adminUsers(gw.base, second.access)).toBe(200);

    const stored = await dump();
    expectNoneIn(stored, { ...first, access2: second.access, refresh2: second.refresh });
    expect(stored).toContain('gw:oidc:AccessToken:sha256:');

    // Revoking a token revokes its grant: every token of the sign-in goes (found through the grant index).
    await revoke(gw.base, second.access);
    expect(await adminUsers(gw.base, second.access)).toBe(401);
    expect(await adminUsers(gw.base, first.access)).toBe(401);
    expect((await tokenRequest(gw.base, { grant_type: 'refresh_token', refresh_token: second.refresh }, DASHBOARD)).status).toBe(400);
  });

  it('honours an access and a refresh token stored in clear by an earlier version, and moves them', async () => {
    const issued = await signIn(gw.base);
    const oldAccess = newTokenId();
    const oldRefresh = newTokenId();
    await storeLegacy('AccessToken', issued.access, oldAccess);
    await storeLegacy('RefreshToken', issued.refresh, oldRefresh);

    expect(await adminUsers(gw.base, oldAccess)).toBe(200);
    expect(await redis.exists(prefix + legacyOidcKey('AccessToken', oldAccess))).toBe(0);
    const renewed = await refresh(gw.base, oldRefresh);
    expect(await adminUsers(gw.base, renewed.access)).toBe(200);
    expectNoneIn(await dump(), { oldAccess, oldRefresh, ...issued, access2: renewed.access, refresh2: renewed.refresh });

    // Still found (now under its hashed key), and revocable.
    expect(await adminUsers(gw.base, oldAccess)).toBe(200);
    await revoke(gw.base, oldAccess);
    expect(await adminUsers(gw.base, oldAccess)).toBe(401);
    // The rotated refresh token is refused, as any reused one.
    expect((await tokenRequest(gw.base, { grant_type: 'refresh_token', refresh_token: oldRefresh }, DASHBOARD)).status).toBe(400);
  });

  it('moves tokens stored in clear at the first start after the upgrade, before any use', async () => {
    const issued = await signIn(gw.base);
    const oldAccess = newTokenId();
    const oldRefresh = newTokenId();
    await storeLegacy('AccessToken', issued.access, oldAccess);
    await storeLegacy('RefreshToken', issued.refresh, oldRefresh);
    // As the earlier version left the store: never swept.
    await redis.del(prefix + LEGACY_MOVED_KEY);

    const next = await startOAuthGateway({ REDIS_URL: redisUrl, GATEWAY_REDIS_PREFIX: prefix, GATEWAY_DATA_DIR: dataDir, GATEWAY_BASE_URL: gw.base });
    try {
      expectNoneIn(await dump(), { oldAccess, oldRefresh });
      expect(await redis.exists(prefix + oidcKey('AccessToken', oldAccess))).toBe(1);
      expect(await adminUsers(next.url, oldAccess)).toBe(200);
      expect((await tokenRequest(next.url, { grant_type: 'refresh_token', refresh_token: oldRefresh }, DASHBOARD)).status).toBe(200);
    } finally {
      await next.close();
    }
  });
});

describe('OAuth secrets at rest in the embedded state file', () => {
  let gw: Gateway | undefined;
  let dataDir: string;
  let port: number;

  const start = async () => {
    gw = await startOAuthGateway({ PORT: String(port), GATEWAY_BASE_URL: `http://127.0.0.1:${port}`, GATEWAY_DATA_DIR: dataDir });
    return gw;
  };

  /** Every byte of every file of the data directory (state.db with its WAL, counters, logs), as text. */
  async function everyFile(): Promise<string> {
    const names = await readdir(dataDir, { recursive: true, withFileTypes: true });
    const files = names.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
    return (await Promise.all(files.map((file) => readFile(file, 'latin1')))).join('\n');
  }

  const stateRows = () => {
    const db = new Database(join(dataDir, 'state.db'), { readonly: true });
    try {
      return db.prepare('SELECT key, value FROM state').all() as Array<{ key: string; value: string }>;
    } finally {
      db.close();
    }
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'gw-oauth-rest-'));
    port = await freePort();
  });
  afterAll(async () => {
    await gw?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps no code, token or session id in any file; tokens of before a restart work, old ones too, and revoke', async () => {
    let running = await start();
    expect(running.gateway.runtime.store.kind).toBe('memory');
    const first = await signIn(running.base);
    const second = await refresh(running.base, first.refresh);
    expect(await adminUsers(running.base, second.access)).toBe(200);
    const rows = stateRows();
    expectNoneIn(await everyFile(), { ...first, access2: second.access, refresh2: second.refresh });
    expect(rows.some((row) => row.key.startsWith('gw:oidc:AccessToken:sha256:'))).toBe(true);
    await running.close();

    // An access token as an earlier version kept it, written while the gateway is down.
    const like = rows.find((row) => row.key === oidcKey('AccessToken', second.access))!;
    const oldAccess = newTokenId();
    const legacy = legacyEnvelope(like.value, oldAccess);
    const db = new Database(join(dataDir, 'state.db'));
    db.prepare('INSERT INTO state (key, value, expires_at) VALUES (?, ?, ?)').run(legacyOidcKey('AccessToken', oldAccess), legacy.value, legacy.expiresAt);
    // As the earlier version left the file: never swept.
    db.prepare('DELETE FROM state WHERE key = ?').run(LEGACY_MOVED_KEY);
    db.close();

    // Moved at start, before any use.
    running = await start();
    const moved = stateRows();
    expect(moved.map((row) => row.key)).not.toContain(legacyOidcKey('AccessToken', oldAccess));
    expect(moved.map((row) => row.key)).toContain(oidcKey('AccessToken', oldAccess));
    expectNoneIn(moved.map((row) => `${row.key}\n${row.value}`).join('\n'), { oldAccess });
    expect(await adminUsers(running.base, oldAccess)).toBe(200);
    expect(await adminUsers(running.base, second.access)).toBe(200);

    // The old token is revocable, and with it its grant (the moved token joined the grant's index).
    await revoke(running.base, oldAccess);
    expect(await adminUsers(running.base, oldAccess)).toBe(401);
    expect(await adminUsers(running.base, second.access)).toBe(401);
    expect((await tokenRequest(running.base, { grant_type: 'refresh_token', refresh_token: second.refresh }, DASHBOARD)).status).toBe(400);
  });
});
