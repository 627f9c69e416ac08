import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../kernel/errors.ts';
import { parseStatsQuery } from './params.ts';

const scope = { timezone: 'Asia/Shanghai', account_id: 'a1', currency: 'CNY', now: Date.parse('2024-03-01T17:00:00Z') };

function errorOf(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (e) {
    if (GatewayError.is(e)) return e;
    throw e;
  }
  throw new Error('expected a GatewayError');
}

describe('parseStatsQuery', () => {
  it('defaults to the 30 local days ending today, grouped by day', () => {
    expect(parseStatsQuery({}, scope)).toEqual({
      start_date: '2024-02-02', end_date: '2024-03-02', timezone: 'Asia/Shanghai', group_by: 'day',
      api_key_id: undefined, account_id: 'a1', currency: 'CNY', rate: null,
    });
  });

  it('reads URLSearchParams', () => {
    const q = parseStatsQuery(new URLSearchParams('start_date=2024-01-01&end_date=2024-01-31&group_by=model&api_key_id=k1'), scope);
    expect(q).toMatchObject({ start_date: '2024-01-01', end_date: '2024-01-31', group_by: 'model', api_key_id: 'k1' });
  });

  it('rejects bad values with 400 invalid_value naming the parameter', () => {
    const cases: [Record<string, string>, string][] = [
      [{ start_date: '2024-13-01' }, 'start_date'],
      [{ end_date: 'yesterday' }, 'end_date'],
      [{ start_date: '2024-02-01', end_date: '2024-01-01' }, 'start_date'],
      [{ group_by: 'week' }, 'group_by'],
      [{ start_date: '2000-01-01', end_date: '2024-01-01' }, 'start_date'],
    ];
    for (const [params, param] of cases) {
      const e = errorOf(() => parseStatsQuery(params, scope));
      expect([e.status, e.code, e.param]).toEqual([400, 'invalid_value', param]);
    }
    expect(errorOf(() => parseStatsQuery({}, { timezone: 'Nowhere/Land' })).param).toBe('timezone');
  });
});
