/**
 * No log record is lost across a SIGTERM under load and a restart: the real process (what
 * `npm start` runs, the dist/ bundle) answers N concurrent calls, is stopped while they are in
 * flight, and after a restart the log holds one row per answered call. The queue here writes
 * only after a minute, so every row comes from the shutdown flush. SQLite and PostgreSQL.
 */
import { randomUUID } from 'node:crypto';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchGateway } from '../_durability.ts';
import { DEMO_KEY, MASTER_KEY, startMockUpstream, type MockUpstream } from '../_setup.ts';

const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const N = 120;
let mock: MockUpstream;
let dir: string;

beforeAll(async () => {
  mock = await startMockUpstream();
  dir = await mkdtemp(join(tmpdir(), 'gw-durable-'));
});
afterAll(async () => {
  await mock?.close();
  await rm(dir, { recursive: true, force: true });
});

const launch = (configFile: string, env: Record<string, string>) => launchGateway(configFile, mock, env);

async function run(env: Record<string, string>) {
  const configFile = join(dir, `durability-${randomUUID()}.yaml`);
  await cp(resolve('test/fixtures/durability.yaml'), configFile);
  mock.setBehavior('gpt-4o-mini', { delayMs: 300 });
  const first = await launch(configFile, env);
  const calls = Array.from({ length: N }, (_, i) =>
    fetch(`${first.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `call number ${i}` }] }),
    }).then(
      async (res) => {
        await res.text();
        return res.status;
      },
      () => null,
    ),
  );
  // Let every call reach the gateway (the upstream holds each for 300 ms), then stop it.
  while (mock.requests.length < N) await new Promise((r) => setTimeout(r, 10));
  first.child.kill('SIGTERM');
  const statuses = await Promise.all(calls);
  expect(await first.exited).toBe(0);
  mock.setBehavior('gpt-4o-mini', {});
  mock.requests.length = 0;
  // Every call in flight at the signal was answered, not cut.
  expect(statuses.filter((s) => s === 200)).toHaveLength(N);

  const second = await launch(configFile, env);
  try {
    const res = await fetch(`${second.url}/v1/admin/logs?page_size=100`, { headers: { authorization: `Bearer ${MASTER_KEY}` } });
    const body = (await res.json()) as any;
    expect(body.meta.total).toBe(N);
    expect(new Set(body.data.map((l: any) => l.id)).size).toBe(100);
    // The rollups were written with the rows: statistics see every call too.
    const today = new Date().toISOString().slice(0, 10);
    const usage = (await (await fetch(`${second.url}/v1/statistics/usage?start_date=${today}&end_date=${today}`, { headers: { authorization: `Bearer ${DEMO_KEY}` } })).json()) as any;
    expect(usage.summary.request_count).toBe(N);
  } finally {
    second.child.kill('SIGTERM');
    await second.exited;
  }
}

describe('logs survive SIGTERM under load and a restart', () => {
  it('with SQLite', async () => {
    await run({ GATEWAY_DATA_DIR: join(dir, 'sqlite-data'), DATABASE_URL: '' });
  }, 60_000);

  it('with PostgreSQL', async () => {
    const schema = `gw_durable_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    try {
      await run({ GATEWAY_DATA_DIR: join(dir, 'pg-data'), DATABASE_URL, DATABASE_SCHEMA: schema });
    } finally {
      const client = new pg.Client({ connectionString: DATABASE_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    }
  }, 60_000);
});
