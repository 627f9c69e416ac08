/**
 * The PostgreSQL store's reads for a counted log-list page (count-list.ts), and the plain COUNT
 * and OFFSET page for the filters the counts cannot answer.
 */
import type pg from 'pg';
import type { CountSource } from './count-list.ts';
import { bucketCountsSql, pageRowsSql, plainPageSql, rawCountSql } from './count-sql.ts';
import type { LogFilter } from './types.ts';

type Row = Record<string, unknown>;
const ph = (i: number) => `$${i}`;

export function postgresCountSource(client: pg.PoolClient, filter: LogFilter): CountSource<Row> {
  return {
    async bucketCounts(unit, ranges) {
      const q = bucketCountsSql(unit, filter, ranges, ph);
      const { rows } = await client.query(q.sql, q.params);
      return rows.map((r) => ({ bucket: Number(r.bucket), n: Number(r.n) }));
    },
    async rawCount(range) {
      const q = rawCountSql(filter, range, ph);
      return Number((await client.query(q.sql, q.params)).rows[0].n);
    },
    async rows(ranges, limit, offset) {
      const q = pageRowsSql(filter, ranges, limit, offset, ph);
      return (await client.query(q.sql, q.params)).rows;
    },
  };
}

/**
 * `read` in one REPEATABLE READ transaction: the counts and the rows of a page come from one
 * snapshot, so a batch committed between them cannot shift the page against its total.
 */
export async function inSnapshot<T>(pool: pg.Pool, read: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const result = await read(client);
    await client.query('COMMIT');
    client.release();
    return result;
  } catch (e) {
    // A connection that failed mid-read (a timeout among them) is not reused.
    client.release(e as Error);
    throw e;
  }
}

/** COUNT(*) and ORDER BY … LIMIT/OFFSET over call_logs. */
export async function plainPage(pool: pg.Pool, filter: LogFilter, limit: number, offset: number): Promise<{ rows: Row[]; total: number }> {
  const q = plainPageSql(filter, limit, offset, ph);
  const total = Number((await pool.query(q.count.sql, q.count.params)).rows[0].n);
  if (offset >= total) return { rows: [], total };
  return { rows: (await pool.query(q.rows.sql, q.rows.params)).rows, total };
}
