/**
 * Settings (spec 4.9): `GET /v1/settings` and partial `PUT /v1/settings` for the caller's own
 * account (the master key is account `admin`). PUT changes only the named groups and fields
 * and answers the whole object (CONTRACT: update = 200 + the whole object). OAuth tokens need
 * read:user / write:user.
 */
import { loadSettings } from '../auth/account-policy.ts';
import { isConvertible } from '../logs/currency.ts';
import { invalidValue, serviceUnavailable } from '../pipeline/errors.ts';
import type { SettingsService } from '../settings/service.ts';
import { validateSettingsPatch } from '../settings/validate.ts';
import { defineRoutes } from './types.ts';

export const settingsRoutes = defineRoutes([
  {
    method: 'GET',
    path: '/v1/settings',
    access: 'key',
    async handler({ runtime, principal }) {
      return loadSettings(runtime, runtime.snapshot, principal);
    },
  },
  {
    method: 'PUT',
    path: '/v1/settings',
    access: 'key',
    async handler({ runtime, principal, body }) {
      const patch = validateSettingsPatch(body);
      const billing = runtime.snapshot.config.billing;
      const currency = patch.account?.currency;
      if (currency && !isConvertible(billing, currency)) {
        throw invalidValue(`account.currency ${currency} has no exchange rate: prices are in ${billing.currency} (an operator adds the rate under billing.exchange_rates).`, 'account.currency');
      }
      const service = runtime.services.settings as SettingsService | undefined;
      if (!service?.update) throw serviceUnavailable('Settings cannot be changed on this gateway.', 'settings_unavailable');
      return service.update(principal.accountId, patch, runtime.snapshot.config.settings);
    },
  },
]);
