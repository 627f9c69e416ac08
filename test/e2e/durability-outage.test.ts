/**
 * PostgreSQL down at SIGTERM: the real process (what `npm start` runs) reaches the database
 * (DATABASE_URL) through a TCP proxy the test stops and starts again. It answers calls while the
 * database is gone; at SIGTERM it keeps retrying the call log until GATEWAY_FLUSH_TIMEOUT_MS, so a
 * database back in time gets every row at once; past the deadline the rows go to a spill file
 * under GATEWAY_DATA_DIR, and the next start stores them all, once. No log or billing row is lost.
 */
import { randomUUID } from 'node:crypto';
import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseProxy } from '../_database-proxy.ts';
import { launchGateway } from '../_durability.ts';
import { DEMO_KEY, startMockUpstream, type MockUpstream } from '../_setup.ts';

const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const N = 6;
let mock: MockUpstream;
let dir: string;

beforeAll(async () => {
  mock = await startMockUpstream();
  dir = await mkdtemp(join(tmpdir(), 'gw-outage-'));
});
afterAll(async () => {
  await mock?.close();
  await rm(dir, { recursive: true, force: true });
});

async function withDatabase<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The ids in the schema's call log and the calls its rollups count. */
const stored = (schema: string) =>
  withDatabase(async (client) => {
    const ids = (await client.query(`SELECT id FROM ${schema}.call_logs ORDER BY id`)).rows.map((r) => r.id as string);
    const counted = Number((await client.query(`SELECT COALESCE(SUM(request_count), 0) AS n FROM ${schema}.stat_rollup`)).rows[0].n);
    return { ids, counted };
  });

const launch = (configFile: string, env: Record<string, string>) => launchGateway(configFile, mock, env);

/** N answered calls while the database is gone; their request ids, sorted. */
async function callsDuringOutage(url: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < N; i++) {
    const res = await fetch(`${url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `call during the outage ${i}` }] }),
    });
    await res.text();
    expect(res.status).toBe(200);
    ids.push(res.headers.get('x-request-id')!);
  }
  return ids.sort();
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A run on its own schema (DATABASE_SCHEMA), dropped afterwards, with its own data directory and config copy. */
async function scenario(work: (ctx: { schema: string; dataDir: string; configFile: string }) => Promise<void>) {
  const schema = `gw_outage_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const configFile = join(dir, `${schema}.yaml`);
  // Log writes only at 1000 records or after a minute: every row here is written by the shutdown or the replay.
  await cp(resolve('test/fixtures/durability.yaml'), configFile);
  try {
    await work({ schema, dataDir: join(dir, schema), configFile });
  } finally {
    await withDatabase((client) => client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
  }
}

describe('SIGTERM while PostgreSQL is down', () => {
  it('spills the rows past GATEWAY_FLUSH_TIMEOUT_MS; the next start stores every one of them, once', () =>
    scenario(async ({ schema, dataDir, configFile }) => {
      const proxy = databaseProxy();
      await proxy.start();
      const env = { DATABASE_URL: proxy.url(), DATABASE_SCHEMA: schema, GATEWAY_DATA_DIR: dataDir, GATEWAY_FLUSH_TIMEOUT_MS: '2000' };
      const first = await launch(configFile, env);
      await proxy.stop();
      const ids = await callsDuringOutage(first.url);

      const signalled = Date.now();
      first.child.kill('SIGTERM');
      expect(await first.exited).toBe(0);
      const took = Date.now() - signalled;
      expect(took).toBeGreaterThanOrEqual(1900); // it kept trying until the deadline
      expect(took).toBeLessThan(10_000);
      expect(first.output()).toContain('log store unavailable at shutdown');
      expect(first.output()).not.toContain('log record dropped');
      const spillDir = join(dataDir, 'log-spill');
      const files = await readdir(spillDir);
      expect(files).toHaveLength(1);
      const spilled = (await readFile(join(spillDir, files[0]!), 'utf8')).trimEnd().split('\n').map((line) => JSON.parse(line).id);
      expect(spilled.sort()).toEqual(ids);

      await proxy.start(); // the database is back for the next start
      const second = await launch(configFile, env);
      try {
        const rows = await until(() => stored(schema), (s) => s.ids.length >= N);
        expect(rows).toEqual({ ids, counted: N });
        expect(await until(() => readdir(spillDir), (left) => left.length === 0)).toEqual([]);
        expect(second.output()).toContain('spilled log records stored');
      } finally {
        second.child.kill('SIGTERM');
        await second.exited;
        await proxy.stop();
      }
    }), 90_000);

  it('a database that accepts connections and never answers cannot hold the shutdown past the deadlines', () =>
    scenario(async ({ schema, dataDir, configFile }) => {
      const proxy = databaseProxy();
      await proxy.start();
      const env = { DATABASE_URL: proxy.url(), DATABASE_SCHEMA: schema, GATEWAY_DATA_DIR: dataDir, GATEWAY_FLUSH_TIMEOUT_MS: '1000' };
      const first = await launch(configFile, env);
      proxy.blackhole();
      const ids = await callsDuringOutage(first.url);
      const signalled = Date.now();
      first.child.kill('SIGTERM');
      try {
        expect(await first.exited).toBe(0);
        // 1 s of flush, then at most 3 s for the pool still waiting on its silent connection.
        expect(Date.now() - signalled).toBeLessThan(10_000);
        const [file] = await readdir(join(dataDir, 'log-spill'));
        const spilled = (await readFile(join(dataDir, 'log-spill', file!), 'utf8')).trimEnd().split('\n').map((line) => JSON.parse(line).id);
        expect(spilled.sort()).toEqual(ids);
      } finally {
        await proxy.stop();
      }
    }), 60_000);

  it('keeps retrying within the deadline: a database back a moment later gets every row at once', () =>
    scenario(async ({ schema, dataDir, configFile }) => {
      const proxy = databaseProxy();
      await proxy.start();
      // The default flush deadline (15 s).
      const first = await launch(configFile, { DATABASE_URL: proxy.url(), DATABASE_SCHEMA: schema, GATEWAY_DATA_DIR: dataDir });
      await proxy.stop();
      const ids = await callsDuringOutage(first.url);

      first.child.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 1500)); // the old queue had given up after 0.6 s
      await proxy.start();
      try {
        expect(await first.exited).toBe(0);
        expect(await stored(schema)).toEqual({ ids, counted: N });
        expect(first.output()).not.toContain('log record dropped');
        expect(await readdir(join(dataDir, 'log-spill')).catch(() => [])).toEqual([]);
      } finally {
        await proxy.stop();
      }
    }), 60_000);
});
