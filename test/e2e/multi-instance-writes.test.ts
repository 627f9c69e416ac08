/**
 * Concurrent management writes on two instances sharing one Redis (127.0.0.1:6379): API keys
 * created in parallel on both, with separate copies of gateway.yaml (instances in this process)
 * and with one shared file (two gateway processes), must all exist, authenticate on both
 * instances and be in every file; max_keys_per_account and max_bytes_per_account hold across instances; parallel partial
 * `PUT /v1/settings` on both keep every change. Each run uses its own key prefix, so parallel
 * runs never collide.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisInstance, TEST_REDIS as REDIS, type Instance } from '../_instances.ts';
import { spawnGateway, waitHealthy, type GatewayProcess } from '../_process.ts';
import { DEMO_KEY, MASTER_KEY, startMockUpstream, type MockUpstream } from '../_setup.ts';
import { accountKeyBytes } from '../../src/config/write/write-bounds.ts';

const prefix = `test:mi-writes:${randomBytes(6).toString('hex')}:`;
/** An account may hold this many keys (demo starts with one). */
const CAP = 24;

let upstream: MockUpstream;
let dir: string;
const instances: Instance[] = [];

beforeAll(async () => {
  upstream = await startMockUpstream();
  dir = await mkdtemp(join(tmpdir(), 'gw-mi-writes-'));
});
afterAll(async () => {
  await Promise.all(instances.map((i) => i.close()));
  await upstream?.close();
  await rm(dir, { recursive: true, force: true });
  const redis = new Redis(REDIS);
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

/** The management fixture with a key cap, written at `file`. */
async function writeConfig(file: string): Promise<void> {
  const fixture = await readFile('test/fixtures/management.yaml', 'utf8');
  await mkdir(join(file, '..'), { recursive: true });
  await writeFile(file, `${fixture}management:\n  max_keys_per_account: ${CAP}\n`);
}

/** An instance in this process on a fresh copy of the config at `file`, with state on Redis under `redisPrefix`. */
async function startOne(file: string, redisPrefix: string): Promise<Instance> {
  await writeConfig(file);
  const instance = await startRedisInstance('management.yaml', REDIS, redisPrefix, { MOCK_URL: `${upstream.url}/v1`, GATEWAY_CONFIG: file });
  instances.push(instance);
  await instance.gateway.config.watcher?.ready;
  return instance;
}

const startPair = (files: [string, string], redisPrefix: string) =>
  Promise.all(files.map((file) => startOne(file, redisPrefix))) as Promise<[Instance, Instance]>;

/** An instance to call: in this process or a child process. */
type Target = { url: string };

async function call(at: Target, method: string, path: string, body?: unknown, key = MASTER_KEY) {
  const res = await fetch(`${at.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
}

/** Resolves once `check` passes (polling every 25 ms); fails after `limitMs`. */
async function eventually(check: () => Promise<boolean>, limitMs: number, what: string): Promise<void> {
  const started = Date.now();
  while (Date.now() - started < limitMs) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`${what}: not within ${limitMs} ms`);
}

/** `n` creates, alternating between the instances, all sent at once. */
function createInParallel(pair: Target[], n: number, body: (i: number) => object, key: string) {
  return Promise.all(Array.from({ length: n }, (_, i) => call(pair[i % 2]!, 'POST', '/v1/api-keys', body(i), key)));
}

/**
 * Every created key is in every file and in force on both instances (polled as the master key,
 * which no management rate limit counts), then authenticates on both.
 */
async function expectEverywhere(pair: Target[], files: string[], created: Array<{ id: string; key: string }>) {
  const missing = async () => {
    const texts = await Promise.all(files.map((f) => readFile(f, 'utf8')));
    const lists = await Promise.all(pair.map(async (at) => new Set((await call(at, 'GET', '/v1/api-keys')).body.data.map((k: { id: string }) => k.id))));
    const gone: string[] = [];
    for (const { id } of created) {
      if (texts.some((t) => !t.includes(`id: ${id}`))) gone.push(`${id} (file)`);
      pair.forEach((at, i) => lists[i]!.has(id) || gone.push(`${id} (${at.url})`));
    }
    return gone;
  };
  await eventually(async () => (await missing()).length === 0, 5000, 'every created key everywhere').catch(async (error) => {
    throw new Error(`${(error as Error).message}; keys answered 201 but missing: ${(await missing()).join(', ')}`);
  });
  for (const at of pair) {
    for (const { id, key } of created) expect((await call(at, 'GET', `/v1/api-keys/${id}`, undefined, key)).status, `key ${id} on ${at.url}`).toBe(200);
  }
}

describe('parallel key creates on two instances with their own gateway.yaml', () => {
  let pair: [Instance, Instance];
  let files: [string, string];
  beforeAll(async () => {
    files = [join(dir, 'a', 'gateway.yaml'), join(dir, 'b', 'gateway.yaml')];
    pair = await startPair(files, `${prefix}own:`);
  });

  /** Every key created so far in this block. */
  const kept: Array<{ id: string; key: string }> = [];

  it('keeps every key answered 201: it is in both files and authenticates on both instances', async () => {
    const answers = await createInParallel(pair, 12, (i) => ({ name: `parallel ${i}` }), DEMO_KEY);
    expect(answers.map((a) => a.status)).toEqual(Array(12).fill(201));
    kept.push(...answers.map((a) => a.body));
    await expectEverywhere(pair, files, kept);
  });

  it('holds max_keys_per_account across the instances', async () => {
    const answers = await createInParallel(pair, CAP + 8, (i) => ({ name: `capped ${i}`, account_id: 'other' }), MASTER_KEY);
    const created = answers.filter((a) => a.status === 201);
    expect(created).toHaveLength(CAP);
    for (const refused of answers.filter((a) => a.status !== 201)) {
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('key_limit_reached');
    }
    kept.push(...created.map((a) => a.body));
    await expectEverywhere(pair, files, kept);
    for (const at of pair) expect(at.gateway.runtime.current().config.keys.filter((k) => k.account === 'other')).toHaveLength(CAP);
  });

  it('holds max_bytes_per_account across the instances', async () => {
    // About 52 KB a key: the default 256 KiB takes four or five of them, fewer than the key cap.
    const models = (i: number) => Array.from({ length: 200 }, (_, j) => `big-${i}-${j}-`.padEnd(256, 'm'));
    const answers = await createInParallel(pair, 10, (i) => ({ name: `heavy ${i}`, permissions: { models: models(i) } }), DEMO_KEY);
    const created = answers.filter((a) => a.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(created.length).toBeLessThan(10);
    for (const refused of answers.filter((a) => a.status !== 201)) {
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('account_bytes_limit_reached');
    }
    kept.push(...created.map((a) => a.body));
    await expectEverywhere(pair, files, kept);
    for (const at of pair) expect(accountKeyBytes(at.gateway.runtime.current().config.keys, 'demo')).toBeLessThanOrEqual(256 * 1024);
  });

  it('an instance that missed every change (started later on an old copy) takes them in before its own', async () => {
    const before = await call(pair[0], 'POST', '/v1/api-keys', { name: 'before the late one' }, DEMO_KEY);
    expect(before.status).toBe(201);
    kept.push(before.body);
    const late = await startOne(join(dir, 'c', 'gateway.yaml'), `${prefix}own:`);
    const created = await call(late, 'POST', '/v1/api-keys', { name: 'late' }, DEMO_KEY);
    expect(created.status).toBe(201);
    kept.push(created.body);
    await expectEverywhere([...pair, late], [...files, join(dir, 'c', 'gateway.yaml')], kept);
  });
});

describe('parallel key creates on two gateway processes sharing one gateway.yaml', () => {
  const children: GatewayProcess[] = [];
  afterAll(async () => {
    for (const child of children) child.child.kill('SIGTERM');
    await Promise.all(children.map((c) => c.exited));
  });

  // Two processes, as the in-process instances would share one per-file write queue.
  it('keeps every key answered 201: it is in the file and authenticates on both instances', async () => {
    const file = join(dir, 'shared', 'gateway.yaml');
    await writeConfig(file);
    const env = (name: string) => ({
      GATEWAY_CONFIG: file,
      GATEWAY_MASTER_KEY: MASTER_KEY,
      GATEWAY_DATA_DIR: join(dir, 'shared', name),
      GATEWAY_REDIS_PREFIX: `${prefix}shared:`,
      REDIS_URL: REDIS,
      MOCK_URL: `${upstream.url}/v1`,
      LOG_LEVEL: 'warn',
    });
    children.push(...(await Promise.all(['a', 'b'].map((name) => spawnGateway(env(name))))));
    await Promise.all(children.map((c) => waitHealthy(c)));
    const answers = await createInParallel(children, 16, (i) => ({ name: `shared ${i}` }), DEMO_KEY);
    expect(answers.map((a) => a.status)).toEqual(Array(16).fill(201));
    await expectEverywhere(children, [file], answers.map((a) => a.body));
  });
});

describe('parallel settings updates on two instances', () => {
  /** Disjoint partial updates: each names one field, so all of them must survive. */
  const CHANGES = [
    { account: { language: 'zh' } },
    { api: { default_temperature: 1.5 } },
    { account: { timezone: 'Asia/Tokyo' } },
    { api: { stream_by_default: true } },
    { notifications: { email_weekly_report: true } },
    { notifications: { balance_threshold: 5 } },
    { security: { request_logging: false } },
    { notifications: { email_usage_alert: true } },
  ];
  const RESET = {
    account: { language: 'en', timezone: 'UTC' },
    api: { default_temperature: 0.7, stream_by_default: false },
    notifications: { email_weekly_report: false, balance_threshold: 0, email_usage_alert: false },
    security: { request_logging: true },
  };
  const EXPECTED = {
    account: { language: 'zh', timezone: 'Asia/Tokyo' },
    api: { default_temperature: 1.5, stream_by_default: true },
    notifications: { email_weekly_report: true, balance_threshold: 5, email_usage_alert: true },
    security: { request_logging: false },
  };

  it('keeps every change of parallel partial PUTs made on both instances', async () => {
    const pair = await startPair([join(dir, 'sa', 'gateway.yaml'), join(dir, 'sb', 'gateway.yaml')], `${prefix}settings:`);
    for (let round = 0; round < 5; round++) {
      expect((await call(pair[0], 'PUT', '/v1/settings', RESET)).status).toBe(200);
      const answers = await Promise.all(CHANGES.map((change, i) => call(pair[i % 2]!, 'PUT', '/v1/settings', change)));
      expect(answers.map((a) => a.status)).toEqual(Array(CHANGES.length).fill(200));
      for (const at of pair) {
        let seen: unknown;
        await eventually(async () => {
          seen = (await call(at, 'GET', '/v1/settings')).body;
          expect(seen).toMatchObject(EXPECTED);
          return true;
        }, 2000, `round ${round}: settings on ${at.url} lost a change: ${JSON.stringify(seen)}`).catch(() => {
          expect(seen, `round ${round}, ${at.url}`).toMatchObject(EXPECTED);
        });
      }
    }
  });
});
