/**
 * Instances on one Redis through its failures: the OAuth key set they share after Redis was
 * unreachable at an instance's start, restarted empty, or flushed (they converge without a
 * restart, and a sign-in started on one finishes on another); and a hung Redis (connected, never
 * answering), which must cost requests one command timeout, not one per request, and must not
 * hold a shutdown. Destructive steps (restart, FLUSHALL) run on a private redis-server started
 * here; the rest uses the shared local Redis under a random prefix, through TCP proxies.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createPublicKey, randomBytes, verify } from 'node:crypto';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisInstance, TEST_REDIS, type Instance } from '../_instances.ts';
import { freePort, spawnGateway, waitHealthy } from '../_process.ts';
import { client, DEMO_KEY, MASTER_KEY, startMockUpstream, type MockUpstream } from '../_setup.ts';
import { codeAcross, DASHBOARD, REDIRECT, tokenRequest } from '../oauth-browser.ts';

/** The public address every instance answers for (the issuer); each request goes to one instance. */
const ISSUER = 'http://gateway.example';
/** Prefixes used on the shared Redis, whose keys are deleted at the end. */
const prefixes: string[] = [];
const newPrefix = (name: string) => {
  const prefix = `test:recovery:${name}:${randomBytes(6).toString('hex')}:`;
  prefixes.push(prefix);
  return prefix;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const started: Instance[] = [];
async function startOAuth(redisUrl: string, prefix: string): Promise<Instance> {
  const instance = await startRedisInstance('oauth.yaml', redisUrl, prefix, { GATEWAY_BASE_URL: ISSUER });
  started.push(instance);
  return instance;
}
async function stop(...instances: Instance[]): Promise<void> {
  for (const instance of instances) started.splice(started.indexOf(instance), 1);
  await Promise.all(instances.map((instance) => instance.close()));
}
afterAll(async () => {
  await Promise.all(started.map((instance) => instance.close()));
  const admin = new Redis(TEST_REDIS);
  for (const prefix of prefixes) {
    for await (const keys of admin.scanStream({ match: `${prefix}*`, count: 500 })) {
      if ((keys as string[]).length > 0) await admin.del(...(keys as string[]));
    }
  }
  admin.disconnect();
});

/** Resolves once `check` passes (polling every 50 ms); fails after `limitMs`. */
async function until(check: () => Promise<boolean>, limitMs: number, what: string): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${limitMs} ms`);
    await sleep(50);
  }
}

type PublicJwks = { keys: Array<{ kid: string; n: string; e: string; kty: string }> };
const jwksOf = async (instance: Instance) => (await (await fetch(`${instance.url}/oauth/jwks`)).json()) as PublicJwks;
const kidsOf = async (instance: Instance) => (await jwksOf(instance)).keys.map((key) => key.kid);
/** Every instance serves the same keys. */
const oneKeySet = async (...instances: Instance[]) => new Set(await Promise.all(instances.map(async (i) => JSON.stringify(await jwksOf(i))))).size === 1;

/**
 * A sign-in driven like a browser behind a load balancer: step `i` reaches `route(i)`; then the
 * code is exchanged on `route` of the next step. Answers the token response.
 */
async function signIn(route: (step: number) => Instance, scope = 'openid read:user') {
  const { code, state, step } = await codeAcross(ISSUER, (i) => route(i).url, scope);
  expect(code).toBeTruthy();
  expect(state).toHaveLength(16);
  return tokenRequest(route(step).url, { grant_type: 'authorization_code', code: code!, redirect_uri: REDIRECT }, DASHBOARD);
}

/** Whether `jwt`'s RS256 signature verifies with one of `jwks`'s keys (by its kid). */
function verifiesWith(jwt: string, jwks: PublicJwks): boolean {
  const [header, payload, signature] = jwt.split('.');
  const { kid } = JSON.parse(Buffer.from(header!, 'base64url').toString()) as { kid: string };
  const jwk = jwks.keys.find((key) => key.kid === kid);
  if (!jwk) return false;
  return verify('sha256', Buffer.from(`${header}.${payload}`), createPublicKey({ key: jwk, format: 'jwk' }), Buffer.from(signature!, 'base64url'));
}

/**
 * A TCP proxy to `target` on `port`: `open()` starts listening (until then the port refuses);
 * `hang()` holds everything either way, unanswered, as a stopped Redis would (`kill -STOP`).
 */
function redisProxy(target: string, port: number) {
  const { hostname, port: targetPort } = new URL(target);
  let hung = false;
  let server: Server | undefined;
  const sockets = new Set<Socket>();
  const forward = (from: Socket, to: Socket) => from.on('data', (chunk: Buffer) => void (hung || to.write(chunk)));
  return {
    url: `redis://127.0.0.1:${port}`,
    open: () =>
      new Promise<void>((resolve) => {
        server = createServer((socket) => {
          const upstream = connect(Number(targetPort || 6379), hostname);
          for (const end of [socket, upstream]) {
            sockets.add(end);
            end.on('error', () => {});
            end.on('close', () => (sockets.delete(end), socket.destroy(), upstream.destroy()));
          }
          forward(socket, upstream);
          forward(upstream, socket);
        });
        server.listen(port, '127.0.0.1', resolve);
      }),
    hang: () => void (hung = true),
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    },
  };
}

/** A private redis-server without persistence (what compose runs), for restarts and FLUSHALL. */
async function privateRedis() {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const url = `redis://127.0.0.1:${port}`;
  const run = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    const admin = new Redis(url, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
    admin.on('error', () => {}); // refused until the server listens
    await until(async () => (await admin.connect().then(() => admin.ping())) === 'PONG', 5000, 'redis-server start');
    admin.disconnect();
  };
  const kill = async () => {
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child!.kill('SIGKILL');
    await exited;
  };
  await run();
  return {
    url,
    /** Killed and started again on its port: empty, as compose's Redis after a restart. */
    restart: async () => (await kill(), await run()),
    async flushAll() {
      const admin = new Redis(url);
      await admin.flushall();
      admin.disconnect();
    },
    kill,
  };
}

describe('OAuth keys shared on one Redis', () => {
  let redis: Awaited<ReturnType<typeof privateRedis>>;
  beforeAll(async () => {
    redis = await privateRedis();
  });
  afterAll(async () => {
    await redis?.kill();
  });

  it('an instance that started while Redis was unreachable joins the set of one started after, without a restart', async () => {
    const prefix = newPrefix('late');
    const proxy = redisProxy(TEST_REDIS, await freePort());
    try {
      const a = await startOAuth(proxy.url, prefix); // the port refuses: A starts on its own key file
      // A signs a user in on its own (Redis is away: its state is local): an ID token under its key.
      const early = await signIn(() => a);
      expect(early.status).toBe(200);
      const ownKid = (await kidsOf(a))[0];

      const b = await startOAuth(TEST_REDIS, prefix); // Redis up: B stores a new shared set
      expect(await kidsOf(b)).not.toContain(ownKid);
      await proxy.open();
      await until(() => oneKeySet(a, b), 15_000, 'one key set on A and B');
      // B's set signs; A's key is published by both, so what A signed still verifies.
      const kids = await kidsOf(b);
      expect(kids).toHaveLength(2);
      expect(kids[1]).toBe(ownKid);
      expect(verifiesWith(String(early.body.id_token), await jwksOf(b))).toBe(true);

      // A sign-in started on one instance finishes on the other, both ways round.
      for (const pair of [[a, b], [b, a]]) {
        const token = await signIn((step) => pair[step % 2]!);
        expect(token.status, JSON.stringify(token.body)).toBe(200);
        expect(verifiesWith(String(token.body.id_token), await jwksOf(pair[0]!))).toBe(true);
        expect(JSON.parse(Buffer.from(String(token.body.id_token).split('.')[0]!, 'base64url').toString()).kid).toBe(kids[0]);
      }
      await stop(a, b);
    } finally {
      await proxy.close();
    }
  });

  it('Redis restarted empty: the running instances store their set again, and one started after joins it (no key changes)', async () => {
    const prefix = newPrefix('restart');
    const [a, b] = await Promise.all([startOAuth(redis.url, prefix), startOAuth(redis.url, prefix)]);
    expect(await oneKeySet(a, b)).toBe(true);
    const kids = await kidsOf(a);
    await redis.restart();
    const reader = new Redis(redis.url);
    try {
      await until(async () => (await reader.get(`${prefix}gw:oauth:jwks`)) !== null, 15_000, 'the shared set stored again');
    } finally {
      reader.disconnect();
    }
    const c = await startOAuth(redis.url, prefix);
    expect(await oneKeySet(a, b, c)).toBe(true);
    expect(await kidsOf(c)).toEqual(kids);
    await stop(a, b, c);
  });

  it('a FLUSHALL while instances run: they converge with one started after it, and sign-ins cross them', async () => {
    const prefix = newPrefix('flush');
    const [a, b] = await Promise.all([startOAuth(redis.url, prefix), startOAuth(redis.url, prefix)]);
    const before = await kidsOf(a);
    await redis.flushAll();
    // Nothing stored: the newcomer stores its own new set, and the running ones follow it.
    const c = await startOAuth(redis.url, prefix);
    await until(() => oneKeySet(a, b, c), 15_000, 'one key set on A, B and C');
    expect(await kidsOf(c)).toContain(before[0]);
    for (const route of [(step: number) => [a, c][step % 2]!, (step: number) => [c, b][step % 2]!]) {
      const token = await signIn(route, 'read:user');
      expect(token.status, JSON.stringify(token.body)).toBe(200);
    }
    await stop(a, b, c);
  });
});

describe('a hung Redis (connected, never answering)', () => {
  let upstream: MockUpstream;
  beforeAll(async () => {
    upstream = await startMockUpstream();
  });
  afterAll(async () => {
    await upstream?.close();
  });

  it('costs one command timeout, then requests run on local state at full speed; the shutdown still finishes', async () => {
    const proxy = redisProxy(TEST_REDIS, await freePort());
    await proxy.open();
    try {
      const instance = await startRedisInstance('management.yaml', proxy.url, newPrefix('hung'), { MOCK_URL: `${upstream.url}/v1` });
      const chat = async () => {
        const startedAt = Date.now();
        await client(instance, DEMO_KEY).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
        return Date.now() - startedAt;
      };
      await chat();
      proxy.hang();
      await chat(); // finds out (one command timeout, 300 ms here)
      const times = [];
      for (let i = 0; i < 5; i++) times.push(await chat());
      expect(Math.max(...times), String(times)).toBeLessThan(250);
      const health = (await (await fetch(`${instance.url}/v1/system/health`)).json()) as { components: { cache: string } };
      expect(health.components.cache).toBe('degraded');

      const closing = Date.now();
      await instance.close();
      expect(Date.now() - closing).toBeLessThan(5000);
    } finally {
      await proxy.close();
    }
  });

  it('SIGTERM still ends the process (npm start), within seconds', { timeout: 90_000 }, async () => {
    const proxy = redisProxy(TEST_REDIS, await freePort());
    await proxy.open();
    const dir = await mkdtemp(join(tmpdir(), 'gw-hung-'));
    const configFile = join(dir, 'gateway.yaml');
    await cp(resolve('test/fixtures/management.yaml'), configFile);
    const gateway = await spawnGateway({
      GATEWAY_CONFIG: configFile,
      GATEWAY_DATA_DIR: join(dir, 'data'),
      GATEWAY_MASTER_KEY: MASTER_KEY,
      REDIS_URL: proxy.url,
      GATEWAY_REDIS_PREFIX: newPrefix('sigterm'),
      MOCK_URL: `${upstream.url}/v1`,
    });
    try {
      await waitHealthy(gateway);
      await client(gateway, DEMO_KEY).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
      proxy.hang();
      const stopping = Date.now();
      gateway.child.kill('SIGTERM');
      const code = await Promise.race([gateway.exited, sleep(15_000).then(() => 'still running')]);
      expect(code, gateway.output().slice(-2000)).toBe(0);
      expect(Date.now() - stopping).toBeLessThan(10_000);
    } finally {
      gateway.child.kill('SIGKILL');
      await proxy.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
