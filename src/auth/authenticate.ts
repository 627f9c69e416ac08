/**
 * The one door every caller's credential passes, inference and management alike: the bearer
 * credential resolved to a principal (401 without one, or with one that resolves to nobody),
 * the account's settings loaded, and its IP allow-list enforced (403).
 */
import type { AccountSettings } from '../config/types.ts';
import type { Snapshot } from '../config/snapshot.ts';
import { invalidApiKey, missingApiKey } from '../kernel/errors.ts';
import type { Principal } from '../pipeline/principal.ts';
import type { Runtime } from '../pipeline/runtime.ts';
import { enforceIpAllowList, loadSettings } from './account-policy.ts';
import { bearerToken, resolveCredential } from './credentials.ts';

export interface Authenticated {
  principal: Principal;
  settings: AccountSettings;
}

/**
 * `onPrincipal` runs as soon as the caller is known, before the settings and the allow-list: the
 * auth step records the principal there (so a refused call is still attributed in the log) and
 * checks the endpoint's scope.
 */
export async function authenticate(
  request: Request,
  runtime: Runtime,
  snapshot: Snapshot,
  ip: string,
  onPrincipal?: (principal: Principal) => void,
): Promise<Authenticated> {
  const token = bearerToken(request);
  if (!token) throw missingApiKey();
  const principal = await resolveCredential(token, runtime, snapshot);
  if (!principal) throw invalidApiKey();
  onPrincipal?.(principal);
  const settings = await loadSettings(runtime, snapshot, principal);
  enforceIpAllowList(principal, settings, ip);
  return { principal, settings };
}
