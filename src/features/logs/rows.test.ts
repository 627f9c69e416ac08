import { describe, expect, it } from 'vitest';
import { fromScaled, toScaled } from '../../kernel/decimal.ts';
import { normalizeRecord } from './rows.ts';
import type { LogRecord } from './types.ts';

const costOf = (input: unknown) => normalizeRecord({ input_cost: input } as unknown as LogRecord).input_cost;

describe('normalizeRecord costs', () => {
  it('keeps a canonical decimal as it is and rewrites every other form as fromScaled would', () => {
    const values = [
      '0', '1', '-1', '0.5', '-0.5', '12.000000000001', '0.0000018', '123456789012345678901234567890.25',
      // not canonical: each is parsed and written again
      '-0', '00.5', '0.50', '5.', '.5', '+1', '1e-7', '0.1234567890125', '-0.0000000000001', ' 0.3', '0.0',
    ];
    for (const v of values) expect(costOf(v), v).toBe(fromScaled(toScaled(v)));
    expect(costOf(0.1)).toBe('0.1');
    expect(costOf('a few')).toBe('0');
    expect(costOf(undefined)).toBe('0');
  });
});
