/**
 * Settings (spec 4.9): `GET /v1/settings` and partial `PUT /v1/settings` for the caller's own
 * account (the master key is account `admin`). PUT changes only the named groups and fields
 * and answers the whole object (CONTRACT: update = 200 + the whole object). OAuth tokens need
 * read:user / write:user.
 */
import { loadSettings } from '../../auth/account-policy.ts';
import { isConvertible } from '../../config/currency.ts';
import { GatewayError, invalidValue, notFound } from '../../kernel/errors.ts';
import type { Runtime } from '../../pipeline/runtime.ts';
import type { SettingsService } from './service.ts';
import { applyPatch, validateSettingsPatch, type SettingsPatch } from './validate.ts';
import { ipAllowed } from '../../kernel/ip-match.ts';
import type { AccountSettings } from '../../config/types.ts';
import { defineRoutes } from '../../http/route.ts';

/**
 * An allow-list the caller's own address is not on would refuse this very client on every route
 * from the next call, /v1/settings included, with no way back through the API: refused.
 */
function refuseLockOut(next: AccountSettings, ip: string): void {
  if (next.security.ip_whitelist_enabled && !ipAllowed(ip, next.security.allowed_ips)) {
    throw new GatewayError(400, 'invalid_request_error', `This allow-list would lock out the address you are calling from (${ip}): add it to security.allowed_ips, or leave the allow-list off.`, {
      code: 'ip_allow_list_lockout',
      param: 'security.allowed_ips',
    });
  }
}

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
    async handler({ runtime, principal, body, ip }) {
      const patch = validatedPatch(runtime, body);
      if (patch.security && principal.kind !== 'master') {
        refuseLockOut(applyPatch(await loadSettings(runtime, runtime.current(), principal), patch), ip);
      }
      return service.update(principal.accountId, patch, runtime.current().config.settings);
    },
  },
  // An admin reads and changes any account's settings: the way back for an account whose
  // allow-list no longer lets its own keys in (an address that changed), which nothing else offers.
  {
    method: 'GET',
    path: '/v1/admin/users/:id/settings',
    access: 'admin',
    async handler({ runtime, params }) {
      return service.get(existingAccount(runtime, params.id!), runtime.current().config.settings);
    },
  },
  {
    method: 'PUT',
    path: '/v1/admin/users/:id/settings',
    access: 'admin',
    async handler({ runtime, params, body }) {
      const account = existingAccount(runtime, params.id!);
      return service.update(account, validatedPatch(runtime, body), runtime.current().config.settings);
    },
  },
  ]);

/** The body as a settings patch, its currency one the gateway can convert to. */
function validatedPatch(runtime: Runtime, body: unknown): SettingsPatch {
  const patch = validateSettingsPatch(body);
  const billing = runtime.current().config.billing;
  const currency = patch.account?.currency;
  if (currency && !isConvertible(billing, currency)) {
    throw invalidValue(`account.currency ${currency} has no exchange rate: prices are in ${billing.currency} (an operator adds the rate under billing.exchange_rates).`, 'account.currency');
  }
  return patch;
}

function existingAccount(runtime: Runtime, id: string): string {
  if (!runtime.current().accounts.has(id)) throw notFound(`No user with id '${id}'.`);
  return id;
}
