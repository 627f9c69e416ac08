/**
 * The counter behind a token budget (`quota_limit`) of a group, a provider or an API key. Without
 * `quota_period` one counter runs forever (`gw:quota:<owner>:<id>`); with one, each calendar
 * period counts under its own key (`gw:quota:<owner>:<id>:<period>:<first day>`), which expires a
 * day after the period ends (late settlements of long requests still land on it). The period is
 * read from the key, so the reset costs no store call and happens at one instant on every instance.
 */
import { periodWindow, type QuotaPeriod } from './period.ts';

export type QuotaOwner = 'group' | 'provider' | 'key';

export interface QuotaCounter {
  key: string;
  /** Expiry of a periodic counter (0: never). */
  ttlMs: number;
  /** When the counter starts over (ms since the epoch), or null when it never does. */
  resetsAt: number | null;
}

/** How long a finished period's counter is kept for settlements of requests still running. */
const SETTLE_GRACE_MS = 86_400_000;

/** The lifetime counter of an owner (and the base of its periodic ones). */
export const quotaKey = (owner: QuotaOwner, id: string) => `gw:quota:${owner}:${id}`;

/**
 * The counter that `now` counts against.
 * @example quotaCounter('group', 'team', 'daily', 'UTC', Date.parse('2026-11-25T10:00:00Z')).key // 'gw:quota:group:team:daily:2026-11-25'
 */
export function quotaCounter(owner: QuotaOwner, id: string, period: QuotaPeriod | undefined, tz: string, now: number): QuotaCounter {
  if (!period) return { key: quotaKey(owner, id), ttlMs: 0, resetsAt: null };
  const window = periodWindow(period, tz, now);
  return { key: `${quotaKey(owner, id)}:${period}:${window.label}`, ttlMs: window.resetsAt - now + SETTLE_GRACE_MS, resetsAt: window.resetsAt };
}

/** An instant as answers show it: ISO 8601 UTC to the second (`2026-11-26T00:00:00Z`). */
export const instant = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The quota fields of a GET answer. */
export function quotaView(counter: QuotaCounter, period: QuotaPeriod | undefined, used: number) {
  return {
    quota_used: used,
    quota_period: period ?? null,
    quota_resets_at: counter.resetsAt === null ? null : instant(counter.resetsAt),
  };
}
