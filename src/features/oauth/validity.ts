/**
 * What ends an OAuth token, code or browser session of the gateway's own server before its expiry,
 * whatever the state store still holds for it. The access-token verifier, the provider's account
 * lookup (code exchange, refresh, userinfo, sign-in session) and the authorization endpoint apply
 * the same two rules:
 *
 * - its client must still be declared: a client removed from gateway.yaml (a hot reload is enough)
 *   gets nothing more, though the provider built at start still knows it;
 * - it must not be older than its account: an account that carries a `created_at` refuses what was
 *   issued before it, so a token of an earlier account with the same id never passes, even if that
 *   id was given again (admin/account-ids.ts makes sure it is not).
 */
import type { Snapshot } from '../../config/snapshot.ts';
import type { AccountConfig } from '../../config/types.ts';

/** Declared in the config in force, or built into the gateway (the console). */
export function clientDeclared(snapshot: Snapshot, clientId: string, builtIn: ReadonlySet<string>): boolean {
  return builtIn.has(clientId) || snapshot.config.oauth.clients.some((client) => client.client_id === clientId);
}

/**
 * Whether something issued at `issuedAtS` (epoch seconds, as in `iat`) predates `account`. Without
 * an issue time it cannot be shown to be the account's, so it counts as older.
 */
export function issuedBeforeAccount(account: AccountConfig | undefined, issuedAtS: number | undefined): boolean {
  const created = account?.created_at ? Date.parse(account.created_at) : Number.NaN;
  if (Number.isNaN(created)) return false;
  if (issuedAtS === undefined || !Number.isFinite(issuedAtS)) return true;
  // created_at has whole seconds, as iat does: the same second is the account's own.
  return issuedAtS < Math.floor(created / 1000);
}
