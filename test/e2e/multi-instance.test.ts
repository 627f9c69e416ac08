/**
 * Several instances on one real Redis (127.0.0.1:6379): a key's rate limit holds across them, a
 * management change on one reaches the other within a second (pub/sub; each writes its own copy
 * of gateway.yaml from a sealed copy: the bus carries only the version, never a secret), and losing Redis fails open with health showing the cache degraded, then
 * recovers by itself. Instances started together on one Redis share one OAuth key set (sealed in
 * the store), so a sign-in started on one goes on on the other. Each run uses a random key prefix
 * so parallel runs never collide; the outage is simulated with a TCP proxy in front of Redis that
 * the test closes and reopens.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisInstance, TEST_REDIS as REDIS, type Instance } from '../_instances.ts';
import { client, DEMO_KEY, MASTER_KEY, startMockUpstream, type MockUpstream } from '../_setup.ts';
import { codeAcross, DASHBOARD, REDIRECT, tokenRequest } from '../oauth-browser.ts';

const prefix = `test:multi:${randomBytes(6).toString('hex')}:`;

let upstream: MockUpstream;
const instances: Instance[] = [];

async function startInstance(redisUrl: string): Promise<Instance> {
  const instance = await startRedisInstance('management.yaml', redisUrl, prefix, { MOCK_URL: `${upstream.url}/v1` });
  instances.push(instance);
  return instance;
}

async function call(at: Instance, method: string, path: string, body?: unknown, key = MASTER_KEY) {
  const res = await fetch(`${at.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

const chat = (at: Instance, key: string) =>
  client(at, key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });

/** Milliseconds until `check` passes (polling every 20 ms), failing after `limitMs`. */
async function timeUntil(check: () => Promise<boolean>, limitMs: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < limitMs) {
    if (await check().catch(() => false)) return Date.now() - started;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`not within ${limitMs} ms`);
}

/** A TCP proxy to Redis that can be stopped (dropping every connection) and started again. */
async function redisProxy() {
  const target = new URL(REDIS);
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;
  const start = () =>
    new Promise<void>((ok) => {
      server = createServer((socket) => {
        const upstreamSocket = connect(Number(target.port || 6379), target.hostname);
        for (const s of [socket, upstreamSocket]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => {});
        }
        socket.pipe(upstreamSocket).pipe(socket);
      });
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as { port: number }).port;
        ok();
      });
    });
  await start();
  return {
    get url() {
      return `redis://127.0.0.1:${port}${target.pathname}`;
    },
    start,
    async stop() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((ok) => (server ? server.close(() => ok()) : ok()));
      server = null;
    },
  };
}

beforeAll(async () => {
  upstream = await startMockUpstream();
});
afterAll(async () => {
  await Promise.all(instances.map((i) => i.close()));
  await upstream?.close();
});

describe('two instances on one Redis', () => {
  let a: Instance;
  let b: Instance;
  beforeAll(async () => {
    [a, b] = await Promise.all([startInstance(REDIS), startInstance(REDIS)]);
    await Promise.all([a.gateway.config.watcher?.ready, b.gateway.config.watcher?.ready]);
  });

  it('a key created on A works on B within a second, and B writes its own copy of the file', async () => {
    const created = await call(a, 'POST', '/v1/api-keys', { name: 'shared', permissions: { rate_limit: 3 } }, DEMO_KEY);
    expect(created.status).toBe(201);
    const ms = await timeUntil(async () => (await call(b, 'GET', `/v1/api-keys/${created.body.id}`)).status === 200, 3000);
    expect(ms).toBeLessThan(1000);
    expect(await readFile(join(b.dir, 'gateway.yaml'), 'utf8')).toBe(await readFile(join(a.dir, 'gateway.yaml'), 'utf8'));
    await expect(chat(b, created.body.key)).resolves.toBeTruthy();

    // the 3-per-minute limit is shared: 1 was used on B; 2 more (A, B) pass, the next fails anywhere
    await chat(a, created.body.key);
    await chat(b, created.body.key);
    const refusedA = await chat(a, created.body.key).catch((e) => e);
    const refusedB = await chat(b, created.body.key).catch((e) => e);
    expect([refusedA.status, refusedB.status]).toEqual([429, 429]);
    expect(refusedA.headers.get('x-ratelimit-limit-requests')).toBe('3');
  });

  it('rotate on B invalidates the old key on A at once; the new key serves on A within a second', async () => {
    const created = await call(b, 'POST', '/v1/api-keys', { name: 'rotating' }, DEMO_KEY);
    await timeUntil(async () => (await chat(a, created.body.key)) !== undefined, 3000);
    const rotated = await call(b, 'POST', `/v1/api-keys/${created.body.id}/rotate`, undefined, DEMO_KEY);
    expect(rotated.status).toBe(200);
    // The old key is refused at once (the change message carries its revocation)...
    expect((await chat(a, created.body.key).catch((e) => e)).status).toBe(401);
    // ...and the new one, like any new key, serves once A has applied the change.
    const ms = await timeUntil(async () => (await chat(a, rotated.body.key)) !== undefined, 3000);
    expect(ms).toBeLessThan(1000);
  });

  it('a provider key reaches B, and no secret passes on the bus (only a version; the stored copy is sealed)', async () => {
    const listener = new Redis(REDIS);
    const seen: string[] = [];
    listener.on('pmessage', (_pattern: string, channel: string, message: string) => seen.push(`${channel} ${message}`));
    await listener.psubscribe(`${prefix}*`);
    try {
      const created = await call(a, 'POST', '/v1/admin/providers', { id: 'shared-up', type: 'compat', endpoint: `${upstream.url}/v1`, api_key: 'sk-shared-upstream-key', models: ['gpt-4o'] });
      expect(created.status).toBe(201);
      await timeUntil(async () => (await call(b, 'GET', '/v1/admin/providers/shared-up')).status === 200, 3000);
      await client(b, DEMO_KEY).chat.completions.create({ model: 'shared-up/gpt-4o', messages: [{ role: 'user', content: 'x' }] });
      expect(upstream.requests.at(-1)!.headers.authorization).toBe('Bearer sk-shared-upstream-key');

      // A rotation changes only the secrets file (the YAML keeps its ${secret:...} reference).
      expect((await call(a, 'PUT', '/v1/admin/providers/shared-up', { api_key: 'sk-rotated-upstream-key' })).status).toBe(200);
      await timeUntil(async () => {
        await client(b, DEMO_KEY).chat.completions.create({ model: 'shared-up/gpt-4o', messages: [{ role: 'user', content: 'x' }] });
        return upstream.requests.at(-1)!.headers.authorization === 'Bearer sk-rotated-upstream-key';
      }, 3000);

      expect(seen.length).toBeGreaterThanOrEqual(2);
      const reader = new Redis(REDIS);
      const stored = (await reader.get(`${prefix}gw:config:current`)) ?? '';
      reader.disconnect();
      expect(stored).not.toBe('');
      // The provider keys given through the API, and the clear key written in the fixture's YAML.
      for (const secret of ['sk-shared-upstream-key', 'sk-rotated-upstream-key', 'upstream-secret-key-0001']) {
        for (const message of seen) expect(message).not.toContain(secret);
        expect(stored).not.toContain(secret);
      }
    } finally {
      listener.disconnect();
    }
  });

  it('group quota usage is shared: quota_used on B includes what A spent', async () => {
    const before = (await call(b, 'GET', '/v1/admin/groups/default')).body.quota_used;
    const answer = await chat(a, DEMO_KEY);
    await timeUntil(async () => (await call(b, 'GET', '/v1/admin/groups/default')).body.quota_used === before + answer.usage!.total_tokens, 2000);
  });
});

describe('losing Redis', () => {
  it('fails open while Redis is away (health: cache degraded) and recovers by itself', async () => {
    const proxy = await redisProxy();
    const c = await startInstance(proxy.url);
    const health = async () => (await (await fetch(`${c.url}/v1/system/health`)).json()) as any;
    expect((await health()).components.cache).toBe('operational');
    await proxy.stop();
    await timeUntil(async () => (await health()).components.cache === 'degraded', 5000);
    expect((await health()).status).toBe('degraded');
    // requests keep flowing on local state
    for (let i = 0; i < 3; i++) await expect(chat(c, DEMO_KEY)).resolves.toBeTruthy();
    await proxy.start();
    await timeUntil(async () => (await health()).components.cache === 'operational', 10000);
    await expect(chat(c, DEMO_KEY)).resolves.toBeTruthy();
  });
});

describe('OAuth across instances on one Redis', () => {
  /** The public address both instances answer for (the issuer); each request is sent to one of them. */
  const ISSUER = 'http://gateway.example';
  const oauthPrefix = `test:multi-oauth:${randomBytes(6).toString('hex')}:`;
  const started: Instance[] = [];
  afterAll(() => Promise.all(started.map((i) => i.close())));

  async function startPair(env: Array<Record<string, string>> = [{}, {}]) {
    const pair = await Promise.all(env.map((e) => startRedisInstance('oauth.yaml', REDIS, oauthPrefix, { GATEWAY_BASE_URL: ISSUER, ...e })));
    started.push(...pair);
    return pair;
  }

  /** The sign-in's steps alternate between the two instances, as behind a load balancer. */
  const signInAcross = (pair: Instance[]) => codeAcross(ISSUER, (step) => pair[step % 2]!.url, 'read:user');

  it('two instances started at the same moment publish one key set, and a sign-in started on A finishes on B', async () => {
    const [a, b] = await startPair();
    const { code, state } = await signInAcross([a, b]);
    expect(code).toBeTruthy();
    expect(state).toHaveLength(16);
    const token = await tokenRequest(b.url, { grant_type: 'authorization_code', code: code!, redirect_uri: REDIRECT }, DASHBOARD);
    expect(token.status).toBe(200);
    const settings = await fetch(`${a.url}/v1/settings`, { headers: { authorization: `Bearer ${token.body.access_token}` } });
    expect(settings.status).toBe(200);
    const jwksA = await (await fetch(`${a.url}/oauth/jwks`)).json();
    const jwksB = await (await fetch(`${b.url}/oauth/jwks`)).json();
    expect(jwksA).toEqual(jwksB);

    // Redis holds the set sealed: no private key in clear.
    const reader = new Redis(REDIS);
    const stored = (await reader.get(`${oauthPrefix}gw:oauth:jwks`)) ?? '';
    reader.disconnect();
    expect(stored).not.toBe('');
    expect(stored).not.toContain('"d"');
  });

  it('the first instance on a Redis shares the key file it already has (keys in use never change)', async () => {
    const own = await mkdtemp(join(tmpdir(), 'gw-keys-'));
    try {
      const dataDir = join(own, 'data');
      await mkdir(dataDir, { recursive: true });
      const jwk = { kty: 'RSA', kid: 'kept-key', use: 'sig', alg: 'RS256' };
      const key = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
      await writeFile(join(dataDir, 'oauth-jwks.json'), JSON.stringify({ keys: [{ ...key, ...jwk }] }), { mode: 0o600 });
      const fresh = `test:multi-oauth:${randomBytes(6).toString('hex')}:`;
      const first = await startRedisInstance('oauth.yaml', REDIS, fresh, { GATEWAY_BASE_URL: ISSUER, GATEWAY_DATA_DIR: dataDir });
      started.push(first);
      const second = await startRedisInstance('oauth.yaml', REDIS, fresh, { GATEWAY_BASE_URL: ISSUER });
      started.push(second);
      for (const instance of [first, second]) {
        const jwks = (await (await fetch(`${instance.url}/oauth/jwks`)).json()) as { keys: Array<{ kid: string; n: string }> };
        expect(jwks.keys.map((k) => [k.kid, k.n])).toEqual([['kept-key', key.n]]);
      }
    } finally {
      await rm(own, { recursive: true, force: true });
    }
  });
});
