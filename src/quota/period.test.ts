import { describe, expect, it } from 'vitest';
import { quotaCounter } from './counter.ts';
import { periodWindow } from './period.ts';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

describe('quota periods', () => {
  it('a daily period runs from local midnight to the next, in the given zone', () => {
    const w = periodWindow('daily', 'Asia/Shanghai', at('2026-11-25T17:30:00Z'));
    expect(w.label).toBe('2026-11-26');
    expect(iso(w.startsAt)).toBe('2026-11-25T16:00:00.000Z');
    expect(iso(w.resetsAt)).toBe('2026-11-26T16:00:00.000Z');
  });

  it('a week starts on Monday (ISO 8601), also across a month and a year', () => {
    // 2026-11-25 is a Wednesday.
    const w = periodWindow('weekly', 'UTC', at('2026-11-25T12:00:00Z'));
    expect([w.label, iso(w.resetsAt)]).toEqual(['2026-11-23', '2026-11-30T00:00:00.000Z']);
    // Sunday 2027-01-03 belongs to the week of Monday 2026-12-28.
    const y = periodWindow('weekly', 'UTC', at('2027-01-03T23:59:59Z'));
    expect([y.label, iso(y.resetsAt)]).toEqual(['2026-12-28', '2027-01-04T00:00:00.000Z']);
    // Monday 00:00 starts a new one.
    expect(periodWindow('weekly', 'UTC', at('2027-01-04T00:00:00Z')).label).toBe('2027-01-04');
  });

  it('a month ends at the first local instant of the next, December included', () => {
    const w = periodWindow('monthly', 'America/New_York', at('2026-12-31T23:00:00-05:00'));
    expect(w.label).toBe('2026-12-01');
    expect(iso(w.startsAt)).toBe('2026-12-01T05:00:00.000Z');
    expect(iso(w.resetsAt)).toBe('2027-01-01T05:00:00.000Z');
  });

  it('a day over a DST change lasts 23 hours', () => {
    const w = periodWindow('daily', 'Europe/Berlin', at('2026-03-29T12:00:00Z'));
    expect(w.resetsAt - w.startsAt).toBe(23 * 3_600_000);
  });

  it('answers from its cache only inside the cached window', () => {
    const first = periodWindow('daily', 'UTC', at('2026-11-25T23:59:59Z'));
    const next = periodWindow('daily', 'UTC', at('2026-11-26T00:00:00Z'));
    expect([first.label, next.label]).toEqual(['2026-11-25', '2026-11-26']);
    expect(periodWindow('daily', 'UTC', at('2026-11-25T01:00:00Z')).label).toBe('2026-11-25');
  });

  it('names a periodic counter by owner, period and first day, and keeps it a day past the period', () => {
    const now = at('2026-11-25T10:00:00Z');
    expect(quotaCounter('provider', 'p1', undefined, 'UTC', now)).toEqual({ key: 'gw:quota:provider:p1', ttlMs: 0, resetsAt: null });
    const monthly = quotaCounter('key', 'k1', 'monthly', 'UTC', now);
    expect(monthly.key).toBe('gw:quota:key:k1:monthly:2026-11-01');
    expect(monthly.resetsAt).toBe(at('2026-12-01T00:00:00Z'));
    expect(monthly.ttlMs).toBe(at('2026-12-02T00:00:00Z') - now);
    // daily and weekly counters of the same first day are distinct keys
    expect(quotaCounter('group', 'g', 'daily', 'UTC', at('2026-11-23T10:00:00Z')).key).not.toBe(quotaCounter('group', 'g', 'weekly', 'UTC', at('2026-11-23T10:00:00Z')).key);
  });
});
