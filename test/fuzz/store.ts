/**
 * Which call-log store the fuzz suite runs on: the embedded SQLite file (default), or PostgreSQL
 * when `FUZZ_STORE=postgres` (fuzz-postgres.test.ts sets it), in a throwaway schema dropped after
 * the run. PostgreSQL refuses what SQLite takes (NUL, lone surrogate escapes in JSONB), so the
 * properties must pass on both.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';

export interface FuzzStore {
  kind: 'sqlite' | 'postgres';
  /** Added to the gateway's environment. */
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

export function fuzzStore(): FuzzStore {
  if (process.env.FUZZ_STORE !== 'postgres') return { kind: 'sqlite', env: {}, cleanup: async () => {} };
  const url = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
  const schema = `gw_fuzz_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  return {
    kind: 'postgres',
    env: { DATABASE_URL: url, DATABASE_SCHEMA: schema },
    async cleanup() {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
}
