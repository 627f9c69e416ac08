import { describe, expect, it } from 'vitest';
import { countableWindow, listByCounts, type CountSource } from './count-list.ts';
import { DAY_MS, HOUR_MS, MAX_TIME, MIN_TIME, mergedRanges, timeSpans, touchedSegments, type TimeRange } from './count-plan.ts';
import { seededRandom as rng } from '../../kernel/seeded-random.ts';

interface Row {
  id: string;
  created_at: number;
}

const T = Date.parse('2024-03-01T00:00:00Z');
const inRanges = (t: number, ranges: TimeRange[]) => ranges.some((r) => t >= r.from && t <= r.to);
const byListOrder = (a: Row, b: Row) => b.created_at - a.created_at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** Counts and rows from an array, as the stores' tables would hold them; logs every read. */
function arraySource(rows: Row[], reads: string[] = []): CountSource<Row> {
  return {
    async bucketCounts(unit, ranges) {
      reads.push(`${unit} counts`);
      const size = unit === 'day' ? DAY_MS : HOUR_MS;
      const counts = new Map<number, number>();
      for (const r of rows) {
        const bucket = Math.floor(r.created_at / size) * size;
        if (inRanges(bucket, ranges)) counts.set(bucket, (counts.get(bucket) ?? 0) + 1);
      }
      return [...counts].map(([bucket, n]) => ({ bucket, n }));
    },
    async rawCount(range) {
      reads.push('raw count');
      return rows.filter((r) => inRanges(r.created_at, [range])).length;
    },
    async rows(ranges, limit, offset) {
      reads.push(`rows skipping ${offset}`);
      return rows.filter((r) => inRanges(r.created_at, ranges)).sort(byListOrder).slice(offset, offset + limit);
    },
  };
}

/** What COUNT(*) and ORDER BY … LIMIT/OFFSET answer. */
function plainPage(rows: Row[], window: TimeRange, offset: number, limit: number) {
  const matches = rows.filter((r) => inRanges(r.created_at, [window])).sort(byListOrder);
  return { rows: matches.slice(offset, offset + limit), total: matches.length };
}

describe('timeSpans', () => {
  it('counts a window inside one hour in call_logs only', () => {
    expect(timeSpans(T + 10, T + 20)).toEqual([{ unit: 'raw', from: T + 10, to: T + 20 }]);
  });

  it('splits a window off the hour into raw edges, edge hours and whole days, newest first', () => {
    const lo = T + 5 * HOUR_MS + 123;
    const hi = T + 3 * DAY_MS + 7 * HOUR_MS + 456;
    expect(timeSpans(lo, hi)).toEqual([
      { unit: 'raw', from: T + 3 * DAY_MS + 7 * HOUR_MS, to: hi },
      { unit: 'hours', from: T + 3 * DAY_MS, to: T + 3 * DAY_MS + 7 * HOUR_MS - 1 },
      { unit: 'days', from: T + DAY_MS, to: T + 3 * DAY_MS - 1 },
      { unit: 'hours', from: T + 6 * HOUR_MS, to: T + DAY_MS - 1 },
      { unit: 'raw', from: lo, to: T + 6 * HOUR_MS - 1 },
    ]);
  });

  it('reads whole hours and days only when the window is aligned, and days all the way when unbounded', () => {
    expect(timeSpans(T, T + DAY_MS - 1)).toEqual([{ unit: 'days', from: T, to: T + DAY_MS - 1 }]);
    expect(timeSpans(T + HOUR_MS, T + 3 * HOUR_MS - 1)).toEqual([{ unit: 'hours', from: T + HOUR_MS, to: T + 3 * HOUR_MS - 1 }]);
    expect(timeSpans(MIN_TIME, MAX_TIME)).toEqual([{ unit: 'raw', from: MAX_TIME, to: MAX_TIME }, { unit: 'days', from: MIN_TIME, to: MAX_TIME - 1 }]);
    expect(timeSpans(T + 1, T)).toEqual([]);
  });
});

describe('touchedSegments and mergedRanges', () => {
  const seg = (hour: number, n: number) => ({ unit: 'hour' as const, from: T + hour * HOUR_MS, to: T + (hour + 1) * HOUR_MS - 1, n });

  it('finds the segments holding a page and the rows to skip in the first', () => {
    const segments = [seg(5, 10), seg(3, 4), seg(2, 6), seg(0, 10)];
    expect(touchedSegments(segments, 12, 5)).toEqual({ touched: [seg(3, 4), seg(2, 6)], skip: 2 });
    expect(touchedSegments(segments, 0, 10)).toEqual({ touched: [seg(5, 10)], skip: 0 });
    expect(touchedSegments(segments, 30, 10)).toEqual({ touched: [], skip: 0 });
  });

  it('merges adjacent hours and keeps a gap as a separate range', () => {
    expect(mergedRanges([seg(3, 4), seg(2, 6), seg(0, 10)])).toEqual([
      { from: T + 2 * HOUR_MS, to: T + 4 * HOUR_MS - 1, n: 10 },
      { from: T, to: T + HOUR_MS - 1, n: 10 },
    ]);
  });
});

describe('listByCounts', () => {
  it('equals COUNT and OFFSET for random rows, windows and pages, ties inside an hour included', async () => {
    const rand = rng(7);
    const rows: Row[] = [];
    for (let i = 0; i < 600; i++) {
      // Clusters and empty hours, and some rows on the very same millisecond (ties broken by id).
      const t = T + Math.floor(rand() * 5) * DAY_MS + Math.floor(rand() * 6) * 4 * HOUR_MS + Math.floor(rand() * 3) * 1000 * Math.floor(rand() * 2000);
      rows.push({ id: `r${Math.floor(rand() * 1e6).toString(36)}_${i}`, created_at: t });
    }
    const source = arraySource(rows);
    for (let round = 0; round < 300; round++) {
      const from = rand() < 0.2 ? MIN_TIME : T + Math.floor(rand() * 6 * DAY_MS) - DAY_MS / 2;
      const to = rand() < 0.2 ? MAX_TIME : from + Math.floor(rand() * 6 * DAY_MS);
      const limit = 1 + Math.floor(rand() * 50);
      const offset = Math.floor(rand() * 700);
      expect(await listByCounts(source, { from, to }, offset, limit), `${from}..${to} offset ${offset} limit ${limit}`).toEqual(plainPage(rows, { from, to }, offset, limit));
    }
  });

  it('skips through the hours of a deep day instead of its rows', async () => {
    const rows = Array.from({ length: 24 * 50 }, (_, i) => ({ id: `r${i}`, created_at: T + Math.floor(i / 50) * HOUR_MS + (i % 50) }));
    const reads: string[] = [];
    const page = await listByCounts(arraySource(rows, reads), { from: MIN_TIME, to: MAX_TIME }, 1000, 20);
    expect(page).toEqual(plainPage(rows, { from: MIN_TIME, to: MAX_TIME }, 1000, 20));
    expect(reads).toEqual(['raw count', 'day counts', 'hour counts', 'rows skipping 0']);
  });

  it('answers a page past the end with the total and no rows read', async () => {
    const rows = [{ id: 'a', created_at: T }, { id: 'b', created_at: T + 1 }];
    const reads: string[] = [];
    expect(await listByCounts(arraySource(rows, reads), { from: MIN_TIME, to: MAX_TIME }, 2, 10)).toEqual({ rows: [], total: 2 });
    expect(reads).not.toContain('rows skipping 0');
  });
});

describe('countableWindow', () => {
  it('gives the inclusive window, unbounded sides at the ends of Date, and null for a filter on an empty provider or error code', () => {
    expect(countableWindow({ start_time: T + 0.7, end_time: T + 99.2 })).toEqual({ from: T, to: T + 99 });
    expect(countableWindow({ model: 'm1' })).toEqual({ from: MIN_TIME, to: MAX_TIME });
    // The counts store a NULL provider or error code as '': only call_logs tells '' from NULL.
    expect(countableWindow({ provider: '' })).toBeNull();
    expect(countableWindow({ error_code: '' })).toBeNull();
  });
});
