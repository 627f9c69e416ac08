/**
 * SIGKILL under load loses at most the log records of one batch window: the real process (the
 * dist/ bundle) serves a steady stream of calls and is killed without warning; after a restart
 * the log holds every answered call except, at most, those answered in the last
 * `logs.flush_interval_ms` before the kill (plus the time one batch takes to write). Measured on
 * SQLite and PostgreSQL; the figures are printed. (SIGTERM losing none: durability.test.ts.)
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchGateway } from '../_durability.ts';
import { DEMO_KEY, MASTER_KEY, startMockUpstream, type MockUpstream } from '../_setup.ts';

const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
/** The batch window under test. */
const FLUSH_MS = 250;
/** Time a batch may take to reach the disk or the database once due (a loaded 2-core machine). */
const WRITE_MS = 250;
const CONCURRENCY = 8;
let mock: MockUpstream;
let dir: string;

beforeAll(async () => {
  mock = await startMockUpstream();
  dir = await mkdtemp(join(tmpdir(), 'gw-kill-'));
});
afterAll(async () => {
  await mock?.close();
  await rm(dir, { recursive: true, force: true });
});

const launch = (configFile: string, env: Record<string, string>) => launchGateway(configFile, mock, env);

async function killUnderLoad(label: string, env: Record<string, string>) {
  const configFile = join(dir, `kill-${randomUUID()}.yaml`);
  const fixture = await readFile(resolve('test/fixtures/durability.yaml'), 'utf8');
  await writeFile(configFile, fixture.replace('flush_interval_ms: 60000', `flush_interval_ms: ${FLUSH_MS}`));
  const first = await launch(configFile, env);
  const answeredAt: number[] = [];
  let stop = false;
  /** One call; its answer time is recorded when it succeeds. */
  const answeredCall = async () => {
    const res = await fetch(`${first.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'keep going' }] }),
    });
    await res.text();
    if (res.status === 200) answeredAt.push(Date.now());
  };
  // Warm up (first calls compile and open connections), and count those calls too.
  for (let i = 0; i < 5; i++) await answeredCall();
  const loops = Array.from({ length: CONCURRENCY }, async () => {
    while (!stop) {
      try {
        await answeredCall();
      } catch {
        return; // the process is gone
      }
    }
  });
  await new Promise((r) => setTimeout(r, 3000));
  const killedAt = Date.now();
  first.child.kill('SIGKILL');
  stop = true;
  await first.exited;
  await Promise.all(loops);

  const second = await launch(configFile, env);
  try {
    const res = await fetch(`${second.url}/v1/admin/logs?page_size=1`, { headers: { authorization: `Bearer ${MASTER_KEY}` } });
    const logged = ((await res.json()) as { meta: { total: number } }).meta.total;
    const lost = answeredAt.length - logged;
    const lastWindow = answeredAt.filter((t) => t > killedAt - FLUSH_MS - WRITE_MS).length;
    console.info(`SIGKILL under load, ${label}: ${answeredAt.length} calls answered, ${logged} logged, ${lost} lost; ${lastWindow} answered in the last window (${FLUSH_MS} + ${WRITE_MS} ms)`);
    expect(answeredAt.length).toBeGreaterThan(10);
    expect(lost).toBeGreaterThanOrEqual(0);
    expect(lost).toBeLessThanOrEqual(lastWindow);
  } finally {
    second.child.kill('SIGTERM');
    await second.exited;
  }
}

describe('SIGKILL under load loses at most one batch window of log records', () => {
  it('with SQLite', async () => {
    await killUnderLoad('SQLite', { GATEWAY_DATA_DIR: join(dir, 'sqlite-data'), DATABASE_URL: '' });
  }, 150_000);

  it('with PostgreSQL', async () => {
    const schema = `gw_kill_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    try {
      await killUnderLoad('PostgreSQL', { GATEWAY_DATA_DIR: join(dir, 'pg-data'), DATABASE_URL, DATABASE_SCHEMA: schema });
    } finally {
      const client = new pg.Client({ connectionString: DATABASE_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    }
  }, 150_000);
});
