/**
 * The Kubernetes case of a SIGTERM while PostgreSQL is down: the data directory is an emptyDir,
 * deleted with the pod. With REDIS_URL set the rows the shutdown could not store go to Redis, not
 * to a file in that directory; the test deletes the directory, starts a new instance (another data
 * directory) with the database back, and every row is stored, once. Real processes (dist/ bundle).
 */
import { randomUUID } from 'node:crypto';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseProxy } from '../_database-proxy.ts';
import { launchGateway } from '../_durability.ts';
import { DEMO_KEY, startMockUpstream, type MockUpstream } from '../_setup.ts';

const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const N = 5;
const schema = `gw_podgone_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
const prefix = `test:podgone:${randomUUID()}:`;
const redis = new Redis(REDIS_URL);
let mock: MockUpstream;
let dir: string;

beforeAll(async () => {
  mock = await startMockUpstream();
  dir = await mkdtemp(join(tmpdir(), 'gw-podgone-'));
});
afterAll(async () => {
  await mock?.close();
  await rm(dir, { recursive: true, force: true });
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
});

async function storedIds(): Promise<string[]> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    return (await client.query(`SELECT id FROM ${schema}.call_logs ORDER BY id`)).rows.map((r) => r.id as string);
  } finally {
    await client.end();
  }
}

const launch = (configFile: string, env: Record<string, string>) =>
  launchGateway(configFile, mock, { REDIS_URL, GATEWAY_REDIS_PREFIX: prefix, DATABASE_SCHEMA: schema, GATEWAY_FLUSH_TIMEOUT_MS: '1000', ...env });

describe('SIGTERM while PostgreSQL is down, on a pod whose data directory goes with it', () => {
  it('spills the rows to Redis; a new instance with an empty data directory stores every one, once', async () => {
    const configFile = join(dir, 'gateway.yaml');
    // Log writes only at 1000 records or after a minute: every row here is written by the shutdown or the replay.
    await cp(resolve('test/fixtures/durability.yaml'), configFile);
    const proxy = databaseProxy();
    await proxy.start();
    const podDir = join(dir, 'pod-1');
    const first = await launch(configFile, { DATABASE_URL: proxy.url(), GATEWAY_DATA_DIR: podDir });
    await proxy.stop();
    const ids: string[] = [];
    for (let i = 0; i < N; i++) {
      const res = await fetch(`${first.url}/api/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `call ${i}` }] }),
      });
      await res.text();
      expect(res.status).toBe(200);
      ids.push(res.headers.get('x-request-id')!);
    }
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(first.output()).toContain('log records spilled to Redis');
    expect(existsSync(join(podDir, 'log-spill'))).toBe(false);
    expect(await redis.llen(`${prefix}gw:log-spill`)).toBe(1);

    // The pod is deleted, and its emptyDir with it.
    await rm(podDir, { recursive: true, force: true });
    await proxy.start();
    const second = await launch(configFile, { DATABASE_URL: proxy.url(), GATEWAY_DATA_DIR: join(dir, 'pod-2') });
    try {
      let stored: string[] = [];
      for (let i = 0; i < 100 && stored.length < N; i++) {
        stored = await storedIds().catch(() => []);
        if (stored.length < N) await new Promise((r) => setTimeout(r, 200));
      }
      expect(stored).toEqual(ids.sort());
      expect(await redis.llen(`${prefix}gw:log-spill`)).toBe(0);
      expect(second.output()).toContain('spilled log records stored');
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
      await proxy.stop();
    }
  }, 90_000);
});
