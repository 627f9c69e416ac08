/**
 * Turns statistics query parameters (spec 4.7) into a `StatsQuery`, with 400 `invalid_value`
 * errors naming the bad parameter. Defaults: the 30 local days ending today, `group_by=day`.
 */
import { invalidValue } from '../../kernel/errors.ts';
import type { GroupBy, StatsQuery } from './query.ts';
import { FIRST_DATE, isValidDate, isValidTimeZone, LAST_DATE, localDate } from '../../kernel/time.ts';

const GROUPS: readonly GroupBy[] = ['day', 'month', 'model'];
const DAY = 86_400_000;
/** Longest range accepted, in days: keeps one request's day walk bounded. */
export const MAX_RANGE_DAYS = 3_700;

export interface StatsScope {
  /** The account's timezone setting (IANA). */
  timezone: string;
  /** Undefined for an admin looking at all accounts. */
  account_id?: string;
  /** The currency costs are shown in (label of the cost result). */
  currency?: string;
  /** Factor from the ledger's currency to `currency` (null or absent: none). */
  rate?: string | null;
  /** Injectable clock for the default dates. */
  now?: number;
}

/** Validates `start_date`, `end_date`, `group_by`, `api_key_id` against the caller's scope. */
export function parseStatsQuery(params: URLSearchParams | Record<string, string | undefined>, scope: StatsScope): StatsQuery {
  const get = (k: string) => (params instanceof URLSearchParams ? params.get(k) ?? undefined : params[k]) || undefined;
  if (!isValidTimeZone(scope.timezone)) throw invalidValue(`Unknown timezone '${scope.timezone}'.`, 'timezone');
  const now = scope.now ?? Date.now();
  const end = get('end_date') ?? localDate(now, scope.timezone);
  if (!isValidDate(end)) throw invalidValue(`end_date must be a date written YYYY-MM-DD, from ${FIRST_DATE} to ${LAST_DATE}.`, 'end_date');
  const start = get('start_date') ?? shift(end, -29);
  if (!isValidDate(start)) throw invalidValue(`start_date must be a date written YYYY-MM-DD, from ${FIRST_DATE} to ${LAST_DATE}.`, 'start_date');
  if (start > end) throw invalidValue('start_date must not be after end_date.', 'start_date');
  if ((Date.parse(end) - Date.parse(start)) / DAY + 1 > MAX_RANGE_DAYS) {
    throw invalidValue(`The date range may span at most ${MAX_RANGE_DAYS} days.`, 'start_date');
  }
  const groupBy = get('group_by') ?? 'day';
  if (!GROUPS.includes(groupBy as GroupBy)) throw invalidValue("group_by must be 'day', 'month' or 'model'.", 'group_by');
  return {
    start_date: start,
    end_date: end,
    timezone: scope.timezone,
    group_by: groupBy as GroupBy,
    api_key_id: get('api_key_id'),
    account_id: scope.account_id,
    currency: scope.currency,
    rate: scope.rate ?? null,
  };
}

function shift(date: string, days: number): string {
  return new Date(Date.parse(date) + days * DAY).toISOString().slice(0, 10);
}
