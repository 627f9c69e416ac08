/**
 * Calendar maths in an IANA time zone with nothing but `Intl` (no tz database dependency).
 * Statistics days are the account's local days, so a day's start is converted to a UTC instant
 * here, DST included: a local day may last 23 or 25 hours, or start at 01:00 when the clocks
 * jump at midnight.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** The dates statistics accept: `YYYY-MM-DD` from the epoch's year to the end of 2999. */
export const FIRST_DATE = '1970-01-01';
export const LAST_DATE = '2999-12-31';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** True when `tz` is an IANA zone name (or `UTC`) that this runtime knows. */
export function isValidTimeZone(tz: string): boolean {
  try {
    formatter(tz);
    return true;
  } catch {
    return false;
  }
}

/** True when `date` is a real calendar date written `YYYY-MM-DD`, from FIRST_DATE to LAST_DATE. */
export function isValidDate(date: string): boolean {
  const m = DATE_RE.exec(date);
  // Bounded so that day arithmetic (the day after, a month's start) stays within what Date and
  // Intl can write back as YYYY-MM-DD.
  if (!m || date < FIRST_DATE || date > LAST_DATE) return false;
  const t = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return new Date(t).toISOString().slice(0, 10) === date;
}

/** The local calendar date (`YYYY-MM-DD`) of the instant `ms` in zone `tz`. */
export function localDate(ms: number, tz: string): string {
  const p = parts(ms, tz);
  return `${p.year}-${pad(p.month)}-${pad(p.day)}`;
}

/** The zone's offset from UTC at instant `ms`, in milliseconds (+8h for Asia/Shanghai). */
export function offsetAt(ms: number, tz: string): number {
  const p = parts(ms, tz);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return asUtc - Math.floor(ms / 1000) * 1000;
}

/**
 * The UTC instant at which local day `date` begins in `tz`: the first instant whose local date
 * is `date`. Usually local midnight; later when midnight falls in a DST gap.
 */
export function dayStart(date: string, tz: string): number {
  const m = DATE_RE.exec(date);
  if (!m) throw new RangeError(`invalid date: ${date}`);
  const midnightAsUtc = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  // Two passes settle the offset at the candidate instant; then check it really is the start.
  let t = midnightAsUtc - offsetAt(midnightAsUtc, tz);
  t = midnightAsUtc - offsetAt(t, tz);
  if (localDate(t, tz) === date && localDate(t - 1, tz) < date) return t;
  // Gap or ambiguity at midnight: binary search the first instant (minute precision suffices,
  // every real transition is on a whole minute) with a local date on or after `date`.
  let lo = midnightAsUtc - 15 * HOUR;
  let hi = midnightAsUtc + 15 * HOUR;
  while (hi - lo > 60_000) {
    const mid = lo + Math.floor((hi - lo) / 120_000) * 60_000;
    if (localDate(mid, tz) >= date) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** The calendar date after `date` (`YYYY-MM-DD`). */
export function nextDate(date: string): string {
  const m = DATE_RE.exec(date);
  if (!m) throw new RangeError(`invalid date: ${date}`);
  return new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) + DAY).toISOString().slice(0, 10);
}

/**
 * The starts of the local days `startDate`..`endDate` (inclusive) plus the start of the day
 * after, so day i is [result[i], result[i + 1]).
 */
export function dayBoundaries(startDate: string, endDate: string, tz: string): { dates: string[]; starts: number[] } {
  const dates: string[] = [];
  const starts: number[] = [];
  for (let d = startDate; d <= endDate; d = nextDate(d)) {
    dates.push(d);
    starts.push(dayStart(d, tz));
  }
  starts.push(dayStart(nextDate(endDate), tz));
  return { dates, starts };
}

interface Parts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function parts(ms: number, tz: string): Parts {
  const out: Record<string, number> = {};
  for (const p of formatter(tz).formatToParts(ms)) {
    if (p.type !== 'literal') out[p.type] = Number(p.value);
  }
  // Some engines render midnight as hour 24 even with h23; normalise.
  return {
    year: out.year!,
    month: out.month!,
    day: out.day!,
    hour: out.hour === 24 ? 0 : out.hour!,
    minute: out.minute!,
    second: out.second!,
  };
}

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    // Throws RangeError for an unknown zone: that is how isValidTimeZone detects it.
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(tz, f);
  }
  return f;
}

function pad(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}
