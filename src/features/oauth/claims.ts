/**
 * The OpenID Connect claims the gateway's authorization server serves, by scope: the standard ones
 * a relying party expects (another gateway's SSO reads `email` and `name`; openid-client and most
 * IdP integrations ask for `openid email profile`), plus `role` and `group`, which let the console
 * (or a gateway that uses this one as its SSO) know what the account may do without probing.
 */
import type { AccountConfig } from '../../config/types.ts';
import type { SecurityState } from '../security/types.ts';

export const CLAIMS_BY_SCOPE = {
  openid: ['sub'],
  email: ['email', 'email_verified'],
  profile: ['name', 'preferred_username', 'updated_at', 'role', 'group'],
};

/**
 * An account's claims. `email_verified` holds only when the address the account proved it receives
 * (security verification) is its current email; `updated_at` (seconds, as OIDC wants) is the
 * account's creation time, the only change time gateway.yaml keeps.
 */
export function accountClaims(account: AccountConfig, security: Pick<SecurityState, 'email_verified' | 'email'>): Record<string, unknown> {
  const verifiedAddress = (security.email ?? account.email).toLowerCase();
  const created = account.created_at ? Math.floor(Date.parse(account.created_at) / 1000) : NaN;
  return {
    sub: account.id,
    email: account.email,
    email_verified: security.email_verified && verifiedAddress === account.email.toLowerCase(),
    name: account.name,
    preferred_username: account.id,
    ...(Number.isFinite(created) ? { updated_at: created } : {}),
    role: account.role,
    group: account.group,
  };
}
