/**
 * The SQLite store's reads for a counted log-list page (count-list.ts), and the plain COUNT and
 * OFFSET page for the filters the counts cannot answer. better-sqlite3 is synchronous: the reads
 * of one page run without a turn of the event loop between them, so they see one state.
 *
 * One query per time range, not one with OR'ed ranges: SQLite then reads each range through an
 * index of (filtered column, created_at) or of created_at, where with OR'ed ranges it takes a
 * filtered column's index alone (a model's 170,000 rows) or, on the count tables (WITHOUT ROWID,
 * no OR-by-union), scans them whole.
 */
import type Database from 'better-sqlite3';
import type { CountSource } from './count-list.ts';
import { bucketCountsSql, pageRowsSql, plainPageSql, rawCountSql } from './count-sql.ts';
import type { LogFilter } from './types.ts';

type Row = Record<string, unknown>;
const ph = () => '?';

export function sqliteCountSource(db: Database.Database, filter: LogFilter): CountSource<Row> {
  return {
    async bucketCounts(unit, ranges) {
      return ranges.flatMap((range) => {
        const q = bucketCountsSql(unit, filter, [range], ph);
        return db.prepare(q.sql).all(...q.params) as Array<{ bucket: number; n: number }>;
      });
    },
    async rawCount(range) {
      const q = rawCountSql(filter, range, ph);
      return (db.prepare(q.sql).get(...q.params) as { n: number }).n;
    },
    async rows(ranges, limit, offset) {
      const rows: Row[] = [];
      let skip = offset;
      for (const range of ranges) {
        if (rows.length === limit) break;
        if (skip >= range.n) {
          skip -= range.n;
          continue;
        }
        const q = pageRowsSql(filter, [range], limit - rows.length, skip, ph);
        rows.push(...(db.prepare(q.sql).all(...q.params) as Row[]));
        skip = 0;
      }
      return rows;
    },
  };
}

/** COUNT(*) and ORDER BY … LIMIT/OFFSET over call_logs. */
export function plainPage(db: Database.Database, filter: LogFilter, limit: number, offset: number): { rows: Row[]; total: number } {
  const q = plainPageSql(filter, limit, offset, ph);
  const total = (db.prepare(q.count.sql).get(...q.count.params) as { n: number }).n;
  const rows = offset >= total ? [] : (db.prepare(q.rows.sql).all(...q.rows.params) as Row[]);
  return { rows, total };
}
