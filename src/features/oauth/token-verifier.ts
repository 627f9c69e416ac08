/**
 * Resolves OAuth access tokens to principals in-process, through the provider's AccessToken model
 * (the same store the token endpoint wrote to), never over HTTP.
 */
import type { TokenVerifier } from '../../auth/credentials.ts';
import type { Principal } from '../../pipeline/principal.ts';
import type { Snapshot } from '../../config/snapshot.ts';
import type { Runtime } from '../../pipeline/runtime.ts';
import type { ProviderHandle } from './provider-handle.ts';
import { holdsOidcArtefact } from '../../store/oidc-adapter.ts';
import { clientDeclared, issuedBeforeAccount } from './validity.ts';

/**
 * A TokenVerifier for `runtime.services.tokens`, over the OAuth server built on first use. With
 * per-process state (no Redis) a token comes from this process's server or from the data
 * directory, which kept the tokens of the last run: the server is built only when one holds it. `builtInClients` are
 * the client ids the gateway declares itself (the console), beside gateway.yaml's.
 * @example runtime.services.tokens = createTokenVerifier(provider, runtime, ['gateway-console']);
 */
export function createTokenVerifier(provider: ProviderHandle, runtime: Runtime, builtInClients: readonly string[] = []): TokenVerifier {
  const builtIn = new Set(builtInClients);
  return {
    async verify(token: string, snapshot: Snapshot): Promise<Principal | null> {
      // Opaque tokens are 43 base64url chars; skip the store round trip for anything else.
      if (!/^[A-Za-z0-9_-]{20,128}$/.test(token)) return null;
      // Per-process state: a token comes from this process's server or, issued before a restart,
      // from the data directory (durable-keys.ts). Neither holds it: do not build the server to say so.
      if (!provider.used && runtime.store.kind === 'memory' && !(await holdsOidcArtefact(runtime.store, 'AccessToken', token))) return null;
      const found = await (await provider()).AccessToken.find(token);
      if (!found || found.isExpired) return null;
      // The provider keeps the clients it was built with: the config in force says which still count.
      if (!clientDeclared(snapshot, found.clientId, builtIn)) return null;
      const account = snapshot.accounts.get(found.accountId);
      // A deleted account's tokens die with it (admin is built in and may have no entry)...
      if (!account && found.accountId !== 'admin') return null;
      // ...and stay dead should its id ever name an account again.
      if (issuedBeforeAccount(account, found.iat)) return null;
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
