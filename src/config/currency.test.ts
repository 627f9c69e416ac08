import { describe, expect, it } from 'vitest';
import { checkSettingsCurrency, convertScaled, costCurrency, isConvertible } from './currency.ts';
import { fromScaled, toScaled } from '../kernel/decimal.ts';

const billing = { currency: 'CNY', exchange_rates: { USD: 0.14 } };

describe('cost currency', () => {
  it('shows the prices currency as is, and a currency with a rate converted', () => {
    expect(costCurrency(billing, 'CNY')).toEqual({ currency: 'CNY', rate: null });
    expect(costCurrency(billing, 'USD')).toEqual({ currency: 'USD', rate: '0.14' });
  });

  it('never labels a figure with a currency it was not converted to', () => {
    expect(costCurrency(billing, 'EUR')).toEqual({ currency: 'CNY', rate: null });
    expect(isConvertible(billing, 'EUR')).toBe(false);
    expect(isConvertible(billing, 'USD')).toBe(true);
  });

  it('converts exactly, rounding at the twelfth place', () => {
    expect(fromScaled(convertScaled(toScaled('0.75'), '0.14'))).toBe('0.105');
    expect(fromScaled(convertScaled(toScaled('0.000000000001'), '0.5'))).toBe('0.000000000001');
    expect(fromScaled(convertScaled(toScaled('12.5'), null))).toBe('12.5');
  });

  it('refuses a config whose default settings currency has no rate', () => {
    expect(checkSettingsCurrency({ billing, settings: { account: { currency: 'USD' } } })).toEqual([]);
    expect(checkSettingsCurrency({ billing, settings: { account: { currency: 'EUR' } } })).toEqual([
      { segments: ['settings', 'account', 'currency'], message: expect.stringContaining('no rate for EUR') },
    ]);
  });
});
