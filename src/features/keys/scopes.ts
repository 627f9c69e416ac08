/**
 * A key never does more than the credential that created it. Without this, an OAuth token with
 * only `write:api` could mint an unscoped key and, with it, read costs, change settings and the
 * IP allow-list: every scope it was never granted.
 *
 * - A scoped credential (an OAuth token, or a key one created) gives a new key its own platform
 *   scopes, or fewer when the body names `scopes`; never more, and never none (`scopes: null`,
 *   not scope-limited): 403 `scope_exceeded`. The master key and unscoped keys create unscoped
 *   keys unless the body names scopes.
 * - A scoped credential changes, rotates or deletes only keys within its own scopes (an unscoped
 *   key counts as holding every scope): rotating an unscoped sibling would hand it a full-power
 *   secret, as changing one's scopes would lift them. Rotation keeps a key's scopes.
 */
import { isPlatformScope, platformScopes, scopesWithin } from '../../auth/scopes.ts';
import type { KeyConfig } from '../../config/types.ts';
import { forbidden } from '../../kernel/errors.ts';
import type { Principal } from '../../pipeline/principal.ts';

function scopeExceeded(caller: ReadonlySet<string>, reason: string) {
  return forbidden(
    `${reason} This credential holds only the scopes ${platformScopes(caller).join(', ') || '(none)'}, so it may create, change, rotate or delete only keys within them. Use the master key, an unscoped key of the account, or an OAuth token granted those scopes.`,
    'scope_exceeded',
  );
}

/**
 * Throws 403 when a scoped caller would give a key `requested` scopes beyond its own; `null`
 * (no scope limit) is beyond every scoped caller. Values that are not scopes are left to the
 * validator (400 naming the field).
 */
export function assertScopesWithinCaller(principal: Principal, requested: unknown): void {
  const caller = principal.scopes;
  if (!caller) return;
  if (requested === null) throw scopeExceeded(caller, 'A key without scopes (`scopes: null`) is not scope-limited.');
  if (!Array.isArray(requested)) return;
  const beyond = requested.filter((scope): scope is string => typeof scope === 'string' && isPlatformScope(scope) && !caller.has(scope));
  if (beyond.length) throw scopeExceeded(caller, `The key would hold ${beyond.join(', ')}.`);
}

/**
 * The `scopes` of a new key: the body's (checked against the caller's), else the caller's platform
 * scopes; undefined for an unscoped key. A value that is not a list goes on to the validator.
 */
export function scopesOfNewKey(principal: Principal, requested: unknown): unknown {
  if (requested === undefined) return principal.scopes ? platformScopes(principal.scopes) : undefined;
  assertScopesWithinCaller(principal, requested);
  return requested ?? undefined;
}

/** Throws 403 when a scoped caller acts on a key that can do more than the caller itself. */
export function assertKeyWithinCaller(principal: Principal, key: KeyConfig): void {
  if (scopesWithin(key.scopes, principal.scopes)) return;
  const holds = key.scopes ? `the scopes ${key.scopes.join(', ')}` : 'no scope limit (every scope)';
  throw scopeExceeded(principal.scopes!, `The API key '${key.id}' has ${holds}.`);
}
