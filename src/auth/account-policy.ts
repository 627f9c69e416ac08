/**
 * Account-level policy applied at authentication: the account's settings (persisted by the
 * settings service when present, else the gateway defaults) and its IP allow-list.
 */
import type { AccountSettings } from '../config/types.ts';
import { ipNotAllowed } from '../kernel/errors.ts';
import type { Principal } from '../pipeline/principal.ts';
import type { Runtime } from '../pipeline/runtime.ts';
import type { Snapshot } from '../config/snapshot.ts';
import { ipAllowed } from '../kernel/ip-match.ts';

/** Per-account settings storage (see the settings service). */
export interface SettingsReader {
  get(accountId: string, defaults: AccountSettings): Promise<AccountSettings>;
}

declare module '../pipeline/services.ts' {
  interface Services {
    /** The accounts' own settings (the settings feature); without it every account has the defaults. */
    settings?: SettingsReader;
  }
}

export function loadSettings(runtime: Runtime, snapshot: Snapshot, principal: Principal): Promise<AccountSettings> | AccountSettings {
  const reader = runtime.services.settings;
  return reader ? reader.get(principal.accountId, snapshot.config.settings) : snapshot.config.settings;
}

/** The time zone of an account (its settings, else the gateway's default): its days and quota periods. */
export async function accountTimeZone(runtime: Runtime, accountId: string): Promise<string> {
  const reader = runtime.services.settings;
  const defaults = runtime.current().config.settings;
  return reader ? (await reader.get(accountId, defaults)).account.timezone : defaults.account.timezone;
}

/** The allow-list binds the account's keys and tokens; the master key is never blocked. */
export function enforceIpAllowList(principal: Principal, settings: AccountSettings, ip: string) {
  if (principal.kind === 'master' || !settings.security.ip_whitelist_enabled) return;
  if (!ipAllowed(ip, settings.security.allowed_ips)) throw ipNotAllowed(ip);
}
