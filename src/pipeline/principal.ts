import type { AccountConfig, KeyConfig } from '../config/types.ts';

/** Who is calling, as resolved by the auth step. */
export interface Principal {
  /** `master`: GATEWAY_MASTER_KEY; `key`: an API key; `oauth`: an OAuth access token. */
  kind: 'master' | 'key' | 'oauth';
  accountId: string;
  role: 'admin' | 'member';
  account?: AccountConfig;
  key?: KeyConfig;
  /** Group of the account, when it has one. */
  groupId?: string;
  /**
   * Scopes that limit the caller (src/auth/route-scopes.ts): an OAuth token's, or those of an API
   * key an OAuth token created (`keys[].scopes`); undefined = not scope-limited (the master key,
   * an unscoped API key).
   */
  scopes?: ReadonlySet<string>;
}

export const isAdmin = (principal: Principal) => principal.role === 'admin';
