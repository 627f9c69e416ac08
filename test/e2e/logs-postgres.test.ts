/**
 * The gateway with DATABASE_URL: call logs and statistics live in PostgreSQL (a throwaway
 * schema per run via DATABASE_SCHEMA), readable through /v1/admin/logs, and health reports the
 * database component with its latency. A server that accepts connections but never answers
 * does not stop the real process from starting; its calls reach the log once the server answers.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { LogService } from '../../src/features/logs/service.ts';
import { spawnGateway, waitHealthy } from '../_process.ts';
import { DEMO_KEY, MASTER_KEY, useGateway } from '../_setup.ts';

const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const SCHEMA = `gw_e2e_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
const SILENT_SCHEMA = `gw_e2e_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
const state = useGateway('logs.yaml', { DATABASE_URL, DATABASE_SCHEMA: SCHEMA });

afterAll(async () => {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await client.query(`DROP SCHEMA IF EXISTS ${SILENT_SCHEMA} CASCADE`);
  await client.end();
});

/** A TCP server in front of PostgreSQL that accepts connections and stays silent until `answer()`. */
async function silentThenAnswering() {
  const target = new URL(DATABASE_URL);
  const sockets = new Set<Socket>();
  let answering = false;
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    if (!answering) return; // held open, never a byte back
    const upstream = connect(Number(target.port || 5432), target.hostname);
    upstream.on('error', () => socket.destroy());
    socket.pipe(upstream).pipe(socket);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as { port: number };
  const url = new URL(DATABASE_URL);
  url.port = String(port);
  url.hostname = '127.0.0.1';
  return {
    url: url.href,
    answer: () => void (answering = true),
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}

describe('logs in PostgreSQL', () => {
  it('writes calls readable through the admin API and statistics', async () => {
    const logs = state.gw.gateway.runtime.services.logs as LogService;
    expect(logs.store.kind).toBe('postgres');
    for (const model of ['gpt-4o-mini', 'gpt-4o', 'mock/fail-400']) {
      await fetch(`${state.gw.url}/api/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hello there' }] }),
      }).then((r) => r.text());
    }
    await new Promise((r) => setTimeout(r, 50));
    await logs.queue.flush();
    const list = (await (await fetch(`${state.gw.url}/v1/admin/logs?status=success`, { headers: { authorization: `Bearer ${MASTER_KEY}` } })).json()) as any;
    expect(list.meta.total).toBe(2);
    expect(list.data.map((l: any) => l.model)).toEqual(['gpt-4o', 'gpt-4o-mini']);
    const detail = (await (await fetch(`${state.gw.url}/v1/admin/logs/${list.data[0].id}`, { headers: { authorization: `Bearer ${MASTER_KEY}` } })).json()) as any;
    // gpt-4o: 2 × 5/1000 + 3 × 15/1000.
    expect(detail.cost).toEqual({ input: 0.01, output: 0.045, total: 0.055, currency: 'CNY' });
    // The rows really are in the schema.
    const client = new pg.Client({ connectionString: DATABASE_URL });
    await client.connect();
    const { rows } = await client.query(`SELECT count(*)::int AS n FROM ${SCHEMA}.call_logs`);
    await client.end();
    expect(rows[0].n).toBe(3);
    const today = new Date().toISOString().slice(0, 10);
    const cost = (await (await fetch(`${state.gw.url}/v1/statistics/cost?start_date=${today}&end_date=${today}`, { headers: { authorization: `Bearer ${DEMO_KEY}` } })).json()) as any;
    expect(cost.summary.total_cost).toBeCloseTo(0.055 + 0.008, 9);
  });

  it('reports the database and queue in health', async () => {
    const health = (await (await fetch(`${state.gw.url}/v1/system/health`)).json()) as any;
    expect(health.components.database).toBe('operational');
    expect(health.components.queue).toBe('operational');
    expect(health.details.database).toEqual({ kind: 'postgres' });
    expect(health.details.queue).toMatchObject({ depth: 0, max: 1000, dropped: 0 });
  });
});

describe('a PostgreSQL server that accepts connections but never answers', () => {
  it('does not stop the process from starting (a warning says why); the calls reach the log once it answers', async () => {
    const database = await silentThenAnswering();
    const dir = await mkdtemp(join(tmpdir(), 'gw-silent-pg-'));
    const gateway = await spawnGateway({
      GATEWAY_CONFIG: 'test/fixtures/logs.yaml',
      GATEWAY_MASTER_KEY: MASTER_KEY,
      GATEWAY_WATCH: 'false',
      GATEWAY_DATA_DIR: join(dir, 'data'),
      MOCK_URL: `${state.mock.url}/v1`,
      REDIS_URL: '',
      DATABASE_URL: database.url,
      DATABASE_SCHEMA: SILENT_SCHEMA,
    });
    try {
      await waitHealthy(gateway, 25_000);
      expect(gateway.output()).toMatch(/log database unreachable at start, will retry: .*timeout/);
      const res = await fetch(`${gateway.url}/api/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'while the database is silent' }] }),
      });
      expect(res.status).toBe(200);
      await res.text();

      database.answer();
      const client = new pg.Client({ connectionString: DATABASE_URL });
      await client.connect();
      try {
        const deadline = Date.now() + 40_000;
        let rows = 0;
        while (rows < 1 && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 500));
          rows = await client.query(`SELECT count(*)::int AS n FROM ${SILENT_SCHEMA}.call_logs`).then((r) => r.rows[0].n, () => 0);
        }
        expect(rows).toBe(1);
      } finally {
        await client.end();
      }
    } finally {
      gateway.child.kill('SIGTERM');
      await gateway.exited;
      await database.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
