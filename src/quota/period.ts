/**
 * Calendar quota periods (`quota_period: daily | weekly | monthly`) in an IANA time zone. A
 * period is named by its first local day (`2026-11-23`, weeks start on Monday as in ISO 8601),
 * and that name is part of the counter's key: the counter "starts over" because a new period
 * counts under a new key, so every instance switches at the same instant and no reset job has to
 * run, or run exactly once.
 */
import { dayStart, localDate, nextDate } from '../kernel/time.ts';

export const QUOTA_PERIODS = ['daily', 'weekly', 'monthly'] as const;
export type QuotaPeriod = (typeof QUOTA_PERIODS)[number];

export interface PeriodWindow {
  /** First local day of the period, `YYYY-MM-DD` (unique per period and zone). */
  label: string;
  /** UTC instant (ms) at which the period began. */
  startsAt: number;
  /** UTC instant (ms) at which the next period begins. */
  resetsAt: number;
}

const DAY_MS = 86_400_000;

function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** First local day of the period holding local day `date`, and the first day of the next one. */
function periodDays(period: QuotaPeriod, date: string): [first: string, next: string] {
  switch (period) {
    case 'daily':
      return [date, nextDate(date)];
    case 'weekly': {
      const sinceMonday = (new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7;
      const monday = addDays(date, -sinceMonday);
      return [monday, addDays(monday, 7)];
    }
    case 'monthly': {
      const [year, month] = date.split('-').map(Number) as [number, number];
      const next = month === 12 ? `${year + 1}-01-01` : `${year}-${String(month + 1).padStart(2, '0')}-01`;
      return [`${date.slice(0, 7)}-01`, next];
    }
  }
}

// The hot path asks for the same few windows on every call; `Intl` formatting is not free.
const cache = new Map<string, PeriodWindow>();
const CACHE_MAX = 1000;

/**
 * The period of `period` in zone `tz` that holds the instant `now`.
 * @example periodWindow('monthly', 'Asia/Shanghai', Date.parse('2026-11-30T17:00:00Z')).label // '2026-12-01'
 */
export function periodWindow(period: QuotaPeriod, tz: string, now: number): PeriodWindow {
  const id = `${period}|${tz}`;
  const hit = cache.get(id);
  if (hit && hit.startsAt <= now && now < hit.resetsAt) return hit;
  const [first, next] = periodDays(period, localDate(now, tz));
  const window = { label: first, startsAt: dayStart(first, tz), resetsAt: dayStart(next, tz) };
  if (cache.size >= CACHE_MAX) cache.clear();
  cache.set(id, window);
  return window;
}
