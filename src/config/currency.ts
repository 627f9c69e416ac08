/**
 * The currency costs are shown in. The ledger holds every cost in the prices' currency
 * (`billing.currency`, CNY by default: the spec's prices are yuan); an account that settles in
 * another currency sees its statistics converted at `billing.exchange_rates[currency]` (units of
 * that currency per unit of the prices' currency). A currency without a rate cannot be chosen,
 * so a figure is never labelled with a currency it was not converted to.
 */
import type { GatewayConfig } from './types.ts';
import type { PathProblem } from './problems.ts';
import { COST_SCALE, fromScaled, toScaled } from '../kernel/decimal.ts';

type Billing = GatewayConfig['billing'];

/** The label of a cost figure and the factor to apply to ledger amounts (null: none). */
export interface CostCurrency {
  currency: string;
  rate: string | null;
}

export function isConvertible(billing: Billing, currency: string): boolean {
  return currency === billing.currency || billing.exchange_rates[currency] !== undefined;
}

/**
 * How to show costs to an account settling in `wanted`. Without a rate (a setting stored before
 * the rate was removed) the figures stay in the prices' currency, labelled as such.
 */
export function costCurrency(billing: Billing, wanted: string): CostCurrency {
  const rate = wanted === billing.currency ? undefined : billing.exchange_rates[wanted];
  return rate === undefined ? { currency: billing.currency, rate: null } : { currency: wanted, rate: String(rate) };
}

/** A scaled ledger amount in the shown currency (exact decimal maths, rounded like `toScaled`). */
export function convertScaled(amount: bigint, rate: string | null): bigint {
  if (rate === null) return amount;
  // Both factors carry COST_SCALE places, so the product carries twice as many.
  return toScaled(fromScaled(amount * toScaled(rate), COST_SCALE * 2));
}

/** Config check: the default settings' currency must be the prices' or have a rate. */
export function checkSettingsCurrency(data: { billing: Billing; settings: { account: { currency: string } } }): PathProblem[] {
  const currency = data.settings.account.currency;
  if (isConvertible(data.billing, currency)) return [];
  return [{ segments: ['settings', 'account', 'currency'], message: `is "${currency}", but prices are in ${data.billing.currency} and billing.exchange_rates has no rate for ${currency}` }];
}
