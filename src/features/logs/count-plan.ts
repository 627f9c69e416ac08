/**
 * Planning a log-list page from per-hour and per-day match counts (migration 7 keeps them), so a
 * list never counts or skips millions of call_logs rows: the total is whole days from the day
 * counts, whole hours at the edges from the hour counts and at most two sub-hour edges counted in
 * call_logs; the page's rows are read from only the hours that hold them. Pure: no SQL here.
 */

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
/** The times a JavaScript Date can hold: a row outside them cannot be listed at all (toISOString throws). */
export const MIN_TIME = -8_640_000_000_000_000;
export const MAX_TIME = 8_640_000_000_000_000;

/** Milliseconds `from` to `to`, both inclusive. */
export interface TimeRange {
  from: number;
  to: number;
}

/**
 * A stretch of time to count: `raw` is counted in call_logs, `hours` and `days` are summed from
 * the count table of that unit, bucket by bucket (every bucket starting in the range).
 */
export interface TimeSpan extends TimeRange {
  unit: 'raw' | 'hours' | 'days';
}

/** A time range with its number of matching rows. */
export interface CountedRange extends TimeRange {
  n: number;
}

/** A bucket (or raw edge) with its number of matching rows. */
export interface CountedSegment extends CountedRange {
  unit: 'raw' | 'hour' | 'day';
}

const floorTo = (ms: number, unit: number) => Math.floor(ms / unit) * unit;
const ceilTo = (ms: number, unit: number) => Math.ceil(ms / unit) * unit;

/**
 * Splits the inclusive window [lo, hi] into what each source counts, newest first: the sub-hour
 * edges (raw), whole hours up to the first and from the last whole day, and the whole days.
 */
export function timeSpans(lo: number, hi: number): TimeSpan[] {
  if (lo > hi) return [];
  const firstHour = ceilTo(lo, HOUR_MS);
  const endHour = floorTo(hi + 1, HOUR_MS);
  if (firstHour >= endHour) return [{ unit: 'raw', from: lo, to: hi }];
  const spans: TimeSpan[] = [];
  if (endHour <= hi) spans.push({ unit: 'raw', from: endHour, to: hi });
  const firstDay = ceilTo(firstHour, DAY_MS);
  const endDay = floorTo(endHour, DAY_MS);
  if (firstDay >= endDay) {
    spans.push({ unit: 'hours', from: firstHour, to: endHour - 1 });
  } else {
    if (endDay < endHour) spans.push({ unit: 'hours', from: endDay, to: endHour - 1 });
    spans.push({ unit: 'days', from: firstDay, to: endDay - 1 });
    if (firstHour < firstDay) spans.push({ unit: 'hours', from: firstHour, to: firstDay - 1 });
  }
  if (lo < firstHour) spans.push({ unit: 'raw', from: lo, to: firstHour - 1 });
  return spans;
}

/** The segments (newest first) that hold rows [offset, offset + limit), and how many of their rows come before. */
export function touchedSegments(segments: CountedSegment[], offset: number, limit: number): { touched: CountedSegment[]; skip: number } {
  const touched: CountedSegment[] = [];
  let before = 0;
  let skip = 0;
  for (const s of segments) {
    if (before >= offset + limit) break;
    if (before + s.n > offset) {
      if (touched.length === 0) skip = offset - before;
      touched.push(s);
    }
    before += s.n;
  }
  return { touched, skip };
}

/** Time ranges of the segments with their matches, adjacent ones merged, newest first. */
export function mergedRanges(segments: CountedSegment[]): CountedRange[] {
  const ranges: CountedRange[] = [];
  for (const s of segments) {
    const last = ranges.at(-1);
    if (last && last.from === s.to + 1) {
      last.from = s.from;
      last.n += s.n;
    } else {
      ranges.push({ from: s.from, to: s.to, n: s.n });
    }
  }
  return ranges;
}

/** A day segment as its hour buckets' range (what the hour counts are asked for). */
export const dayRange = (day: CountedSegment): TimeRange => ({ from: day.from, to: day.from + DAY_MS - 1 });
