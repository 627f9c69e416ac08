/**
 * The shared store suite against the real local PostgreSQL, one throwaway schema per test.
 * It fails (never skips) when PostgreSQL is unreachable: CI must run it.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createLogStore } from './log-store.ts';
import { makeRecord } from './test-records.ts';
import { describeLogStore } from './store.suite.ts';

const url = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';

async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

async function openStore() {
  const schema = `gw_logs_test_${randomBytes(6).toString('hex')}`;
  const store = await createLogStore({ dataDir: '/nonexistent', databaseUrl: url, pgSchema: schema });
  return {
    store,
    schema,
    async cleanup() {
      await store.close();
      await dropSchema(schema);
    },
  };
}

describeLogStore('postgres', openStore);

describe('postgres log store specifics', () => {
  it('migrates concurrently started instances once', async () => {
    const h = await openStore();
    try {
      const others = await Promise.all([1, 2, 3].map(() =>
        createLogStore({ dataDir: '/nonexistent', databaseUrl: url, pgSchema: h.schema })));
      await Promise.all(others.map((s) => s.close()));
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const { rows } = await client.query(`SELECT version FROM ${h.schema}.schema_migrations`);
      await client.end();
      expect(rows).toEqual([{ version: 1 }, { version: 2 }]);
    } finally {
      await h.cleanup();
    }
  });

  it('stores NUL characters without failing the batch, and keeps costs exact', async () => {
    const h = await openStore();
    try {
      await h.store.insertBatch([makeRecord({
        id: 'log_nul', user_agent: 'a\u0000b', request: JSON.stringify({ messages: [{ role: 'user', content: 'x\u0000y \\u0000' }] }),
        input_cost: '0.000000000001', output_cost: '123456789.123456789012',
      })]);
      const got = await h.store.get('log_nul');
      expect(got).toMatchObject({ user_agent: 'ab', request: { messages: [{ role: 'user', content: 'xy \\u0000' }] } });
      const rows = await h.store.rollup(0, Date.parse('2030-01-01'), {}, 'model');
      expect(rows[0]).toMatchObject({ input_cost: '0.000000000001', output_cost: '123456789.123456789012' });
    } finally {
      await h.cleanup();
    }
  });
});
