import { describe, expect, it } from 'vitest';
import { dayBoundaries, dayStart, isValidDate, isValidTimeZone, localDate, nextDate, offsetAt } from './time.ts';

const iso = (ms: number) => new Date(ms).toISOString();

describe('timezone day boundaries', () => {
  it('finds local midnight in fixed-offset zones', () => {
    expect(iso(dayStart('2024-03-01', 'UTC'))).toBe('2024-03-01T00:00:00.000Z');
    expect(iso(dayStart('2024-01-01', 'Asia/Shanghai'))).toBe('2023-12-31T16:00:00.000Z');
    expect(iso(dayStart('2024-01-01', 'Asia/Kolkata'))).toBe('2023-12-31T18:30:00.000Z');
    expect(iso(dayStart('2024-01-01', 'Asia/Kathmandu'))).toBe('2023-12-31T18:15:00.000Z');
  });

  it('handles DST: 23- and 25-hour days and a midnight that does not exist', () => {
    const ny = dayBoundaries('2024-03-09', '2024-03-11', 'America/New_York').starts;
    expect(ny.slice(1).map((t, i) => (t - ny[i]!) / 3_600_000)).toEqual([24, 23, 24]);
    const fall = dayBoundaries('2024-11-03', '2024-11-03', 'America/New_York').starts;
    expect((fall[1]! - fall[0]!) / 3_600_000).toBe(25);
    // Havana jumps from 00:00 to 01:00: the day starts at local 01:00 (-04).
    expect(iso(dayStart('2024-03-10', 'America/Havana'))).toBe('2024-03-10T05:00:00.000Z');
    // Santiago falls back at 00:00 to 23:00: 2024-04-06 lasts 25 hours.
    const santiago = dayBoundaries('2024-04-06', '2024-04-06', 'America/Santiago').starts;
    expect(santiago.map(iso)).toEqual(['2024-04-06T03:00:00.000Z', '2024-04-07T04:00:00.000Z']);
  });

  it('reads local dates and offsets', () => {
    expect(localDate(Date.parse('2024-03-01T15:59:59.999Z'), 'Asia/Shanghai')).toBe('2024-03-01');
    expect(localDate(Date.parse('2024-03-01T16:00:00Z'), 'Asia/Shanghai')).toBe('2024-03-02');
    expect(offsetAt(Date.parse('2024-07-01T00:00:00Z'), 'Europe/Berlin')).toBe(2 * 3_600_000);
    expect(nextDate('2024-02-28')).toBe('2024-02-29');
    expect(nextDate('2024-12-31')).toBe('2025-01-01');
  });

  it('validates zones and dates', () => {
    expect(isValidTimeZone('Asia/Shanghai')).toBe(true);
    expect(isValidTimeZone('Mars/Olympus')).toBe(false);
    expect(isValidDate('2024-02-29')).toBe(true);
    expect(isValidDate('2023-02-29')).toBe(false);
    expect(isValidDate('2024-3-1')).toBe(false);
  });
});
