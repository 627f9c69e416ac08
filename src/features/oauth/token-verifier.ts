/**
 * Resolves OAuth access tokens to principals in-process, through the provider's AccessToken model
 * (the same store the token endpoint wrote to), never over HTTP.
 */
import type { TokenVerifier } from '../../auth/credentials.ts';
import type { Principal } from '../../pipeline/principal.ts';
import type { Snapshot } from '../../config/snapshot.ts';
import type { Runtime } from '../../pipeline/runtime.ts';
import type { ProviderHandle } from './provider-handle.ts';

/**
 * A TokenVerifier for `runtime.services.tokens`, over the OAuth server built on first use. With
 * per-process state (no Redis) a token can only come from this process's server: until it is
 * built there is none to find, and the server is not built just to say so.
 * @example runtime.services.tokens = createTokenVerifier(provider, runtime);
 */
export function createTokenVerifier(provider: ProviderHandle, runtime: Runtime): TokenVerifier {
  return {
    async verify(token: string, snapshot: Snapshot): Promise<Principal | null> {
      // Opaque tokens are 43 base64url chars; skip the store round trip for anything else.
      if (!/^[A-Za-z0-9_-]{20,128}$/.test(token)) return null;
      if (!provider.used && runtime.store.kind === 'memory') return null;
      const found = await (await provider()).AccessToken.find(token);
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
