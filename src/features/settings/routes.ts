/**
 * Settings (spec 4.9): `GET /v1/settings` and partial `PUT /v1/settings` for the caller's own
 * account (the master key is account `admin`). PUT changes only the named groups and fields
 * and answers the whole object (CONTRACT: update = 200 + the whole object). OAuth tokens need
 * read:user / write:user.
 */
import { loadSettings } from '../../auth/account-policy.ts';
import { isConvertible } from '../../config/currency.ts';
import { invalidValue } from '../../kernel/errors.ts';
import type { SettingsService } from './service.ts';
import { validateSettingsPatch } from './validate.ts';
import { defineRoutes } from '../../http/route.ts';

export const settingsRoutes = (service: SettingsService) =>
  defineRoutes([
  {
    method: 'GET',
    path: '/v1/settings',
    access: 'key',
    async handler({ runtime, principal }) {
      return loadSettings(runtime, runtime.current(), principal);
    },
  },
  {
    method: 'PUT',
    path: '/v1/settings',
    access: 'key',
    async handler({ runtime, principal, body }) {
      const patch = validateSettingsPatch(body);
      const billing = runtime.current().config.billing;
      const currency = patch.account?.currency;
      if (currency && !isConvertible(billing, currency)) {
        throw invalidValue(`account.currency ${currency} has no exchange rate: prices are in ${billing.currency} (an operator adds the rate under billing.exchange_rates).`, 'account.currency');
      }
      return service.update(principal.accountId, patch, runtime.current().config.settings);
    },
  },
  ]);
