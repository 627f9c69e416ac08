/**
 * Resolves OAuth access tokens to principals in-process, through the provider's AccessToken model
 * (the same store the token endpoint wrote to), never over HTTP.
 */
import type Provider from 'oidc-provider';
import type { TokenVerifier } from '../../auth/credentials.ts';
import type { Principal } from '../../pipeline/principal.ts';
import type { Snapshot } from '../../config/snapshot.ts';

/**
 * A TokenVerifier for `runtime.services.tokens`.
 * @example runtime.services.tokens = createTokenVerifier(provider);
 */
export function createTokenVerifier(provider: Provider): TokenVerifier {
  return {
    async verify(token: string, snapshot: Snapshot): Promise<Principal | null> {
      // Opaque tokens are 43 base64url chars; skip the store round trip for anything else.
      if (!/^[A-Za-z0-9_-]{20,128}$/.test(token)) return null;
      const found = await provider.AccessToken.find(token);
      if (!found || found.isExpired) return null;
      const account = snapshot.accounts.get(found.accountId);
      // A deleted account's tokens die with it (admin is built in and may have no entry).
      if (!account && found.accountId !== 'admin') return null;
      return {
        kind: 'oauth',
        accountId: found.accountId,
        role: found.accountId === 'admin' ? 'admin' : (account?.role ?? 'member'),
        account,
        groupId: account?.group,
        scopes: new Set((found.scope ?? '').split(' ').filter(Boolean)),
      };
    },
  };
}
