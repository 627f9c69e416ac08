/**
 * The gateway with DATABASE_URL: call logs and statistics live in PostgreSQL (a throwaway
 * schema per run via DATABASE_SCHEMA), readable through /v1/admin/logs, and health reports the
 * database component with its latency.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { LogService } from '../../src/features/logs/service.ts';
import { DEMO_KEY, MASTER_KEY, useGateway } from '../_setup.ts';

const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const SCHEMA = `gw_e2e_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
const state = useGateway('logs.yaml', { DATABASE_URL, DATABASE_SCHEMA: SCHEMA });

afterAll(async () => {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await client.end();
});

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
