/**
 * One log-list page through the count tables (count-plan.ts), shared by both stores: each store
 * supplies a CountSource bound to the filter, and gets the same rows in the same order
 * (`created_at DESC, id DESC`) and the same exact total as COUNT(*) with LIMIT/OFFSET would give.
 */
import { DAY_MS, HOUR_MS, MAX_TIME, MIN_TIME, dayRange, mergedRanges, timeSpans, touchedSegments, type CountedRange, type CountedSegment, type TimeRange, type TimeSpan } from './count-plan.ts';
import type { LogFilter } from './types.ts';

/** A store's reads for one filter. */
export interface CountSource<Row> {
  /** Matching rows per bucket of the unit's count table, for the buckets starting in any of `ranges`. */
  bucketCounts(unit: 'hour' | 'day', ranges: TimeRange[]): Promise<Array<{ bucket: number; n: number }>>;
  /** Matching call_logs rows in the range (a sub-hour edge). */
  rawCount(range: TimeRange): Promise<number>;
  /**
   * Matching rows within the ranges (newest first, disjoint, each holding `n` matches), in
   * `created_at DESC, id DESC` order, after skipping `offset`.
   */
  rows(ranges: CountedRange[], limit: number, offset: number): Promise<Row[]>;
}

/** Rows [offset, offset + limit) of the filter's matches in the inclusive window, and their total. */
export async function listByCounts<Row>(source: CountSource<Row>, window: TimeRange, offset: number, limit: number): Promise<{ rows: Row[]; total: number }> {
  let segments: CountedSegment[] = [];
  for (const span of timeSpans(window.from, window.to)) segments.push(...(await countSpan(source, span)));
  const total = segments.reduce((sum, s) => sum + s.n, 0);
  if (offset >= total) return { rows: [], total };
  let page = touchedSegments(segments, offset, limit);
  const days = page.touched.filter((s) => s.unit === 'day');
  if (days.length > 0) {
    // A day may hold tens of thousands of matches: skip through its hours instead of its rows.
    const hours = segmentsOf('hour', await source.bucketCounts('hour', days.map(dayRange)));
    segments = segments.flatMap((s) => (days.includes(s) ? hours.filter((h) => h.from >= s.from && h.to <= s.to) : [s]));
    page = touchedSegments(segments, offset, limit);
  }
  return { rows: await source.rows(mergedRanges(page.touched), limit, page.skip), total };
}

async function countSpan<Row>(source: CountSource<Row>, span: TimeSpan): Promise<CountedSegment[]> {
  if (span.unit === 'raw') {
    const n = await source.rawCount(span);
    return n > 0 ? [{ unit: 'raw', from: span.from, to: span.to, n }] : [];
  }
  const unit = span.unit === 'days' ? 'day' : 'hour';
  return segmentsOf(unit, await source.bucketCounts(unit, [span]));
}

/** Buckets with matches as segments, newest first. */
function segmentsOf(unit: 'hour' | 'day', buckets: Array<{ bucket: number; n: number }>): CountedSegment[] {
  const size = unit === 'day' ? DAY_MS : HOUR_MS;
  return buckets
    .filter((b) => b.n > 0)
    .sort((a, b) => b.bucket - a.bucket)
    .map((b) => ({ unit, from: b.bucket, to: b.bucket + size - 1, n: b.n }));
}

/**
 * The filter's inclusive time window (clamped to the times a list can hold), or null when the
 * counts cannot answer it: they store a NULL provider or error code as '', so a filter for ''
 * (which must not match NULL) is answered from call_logs alone.
 */
export function countableWindow(filter: LogFilter): TimeRange | null {
  if (filter.provider === '' || filter.error_code === '') return null;
  const from = filter.start_time === undefined ? MIN_TIME : Math.max(MIN_TIME, Math.floor(filter.start_time));
  const to = filter.end_time === undefined ? MAX_TIME : Math.min(MAX_TIME, Math.floor(filter.end_time));
  return Number.isFinite(from) && Number.isFinite(to) ? { from, to } : null;
}
