import { describe, expect, it } from 'vitest';
import { parseLogQuery } from './routes.ts';

const parse = (query: string) => parseLogQuery(new URLSearchParams(query));
const refusal = (query: string) => {
  try {
    parse(query);
  } catch (error) {
    return error as { status: number; param: string };
  }
  throw new Error(`${query} was accepted`);
};

describe('log list query', () => {
  it('reads ISO 8601 times, with or without a time of day', () => {
    expect(parse('start_time=2026-02-28T23:00:00Z&end_time=2026-03-01').filter).toMatchObject({
      start_time: Date.UTC(2026, 1, 28, 23),
      end_time: Date.UTC(2026, 2, 1),
    });
  });

  it("reads a time without an offset as UTC, whatever the server's zone", () => {
    const zone = process.env.TZ;
    process.env.TZ = 'Asia/Shanghai';
    try {
      expect(parse('start_time=2026-05-01T05:05:05&end_time=2026-05-01 06:00').filter).toEqual({
        start_time: Date.UTC(2026, 4, 1, 5, 5, 5),
        end_time: Date.UTC(2026, 4, 1, 6),
      });
      expect(parse('start_time=2026-05-01T05:05:05%2B08:00').filter.start_time).toBe(Date.UTC(2026, 4, 0, 21, 5, 5));
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });

  it('refuses a calendar date that does not exist instead of rolling it into the next month', () => {
    for (const query of ['end_time=2026-11-31T00:00:00Z', 'start_time=2026-02-30', 'start_time=2026-13-01', 'end_time=2026-00-10']) {
      expect(refusal(query)).toMatchObject({ status: 400, param: query.split('=')[0] });
    }
  });

  it('refuses what is not a time', () => {
    for (const query of ['start_time=yesterday', 'end_time=1700000000000', 'start_time=2026-01-01T25:00:00Z']) {
      expect(refusal(query).status).toBe(400);
    }
  });

  it('reads the additive filters: account, provider, error code and endpoint', () => {
    expect(parse('account_id=a1&provider=p1&error_code=upstream_timeout&endpoint=generate_content').filter).toEqual({
      account_id: 'a1',
      provider: 'p1',
      error_code: 'upstream_timeout',
      endpoint: 'generate_content',
    });
  });

  it('refuses an endpoint it does not know, naming the parameter', () => {
    expect(refusal('endpoint=completions')).toMatchObject({ status: 400, param: 'endpoint' });
  });
});
