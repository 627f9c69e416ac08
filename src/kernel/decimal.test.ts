import { describe, expect, it } from 'vitest';
import { addDecimal, costOf, decimalToNumber, fromScaled, sumDecimals, toNano, toScaled } from './decimal.ts';

describe('exact decimal costs', () => {
  it('adds where binary floats drift', () => {
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(addDecimal('0.1', '0.2')).toBe('0.3');
    expect(addDecimal(0.1, 0.2)).toBe('0.3');
    expect(addDecimal('-0.5', '0.25')).toBe('-0.25');
  });

  it('sums a million tiny costs without drift', () => {
    const one = costOf(1, '0.0001'); // 1 token at 0.0001 yuan per thousand
    expect(one).toBe('0.0000001');
    let float = 0;
    let exact = 0n;
    for (let i = 0; i < 1_000_000; i++) {
      float += 0.0000001;
      exact += toScaled(one);
    }
    expect(float).not.toBe(0.1);
    expect(fromScaled(exact)).toBe('0.1');
    expect(sumDecimals(Array(10).fill('0.1'))).toBe('1');
  });

  it('prices tokens at yuan per thousand', () => {
    expect(costOf(1234, 0.002)).toBe('0.002468');
    expect(costOf(1000, '0.03')).toBe('0.03');
    expect(costOf(0, 5)).toBe('0');
    expect(costOf(3, 1e-7)).toBe('0.0000000003');
    expect(costOf(7, '0.333')).toBe('0.002331');
    // 1 token at 0.0000000015/1000 = 1.5e-12: rounded half away from zero at 12 places.
    expect(costOf(1, '0.0000000015')).toBe('0.000000000002');
    expect(() => costOf(-1, 1)).toThrow(RangeError);
    expect(() => costOf(1, 'abc')).toThrow(RangeError);
  });

  it('converts to nano units and rounded JSON numbers', () => {
    expect(toNano('0.0000000015')).toBe(2n);
    expect(toNano('12.5')).toBe(12_500_000_000n);
    expect(decimalToNumber('1.2345675')).toBe(1.234568);
    expect(decimalToNumber('0.1000004')).toBe(0.1);
    expect(toScaled('1e-3')).toBe(1_000_000_000n);
    expect(toScaled('.5', 1)).toBe(5n);
  });
});
