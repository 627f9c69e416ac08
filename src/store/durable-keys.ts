/**
 * Plain values that are state, not cache: an account's settings, its two-factor status, retired
 * account ids and the OAuth server's grants, sessions and tokens. The embedded memory store never
 * evicts them to make room and, given a data directory, keeps them on disk across restarts
 * (durable-file.ts). Redis keeps everything itself.
 *
 * The owners build their keys under these prefixes: settings/service.ts (`gw:settings:`),
 * security/state.ts (`gw:sec:status:`), admin/account-ids.ts (`gw:retired:`), oidc-adapter.ts
 * (`gw:oidc:`).
 */
export const DURABLE_KEY_PREFIXES = ['gw:settings:', 'gw:sec:status:', 'gw:retired:', 'gw:oidc:'] as const;

export function isDurableKey(key: string): boolean {
  for (const prefix of DURABLE_KEY_PREFIXES) if (key.startsWith(prefix)) return true;
  return false;
}
