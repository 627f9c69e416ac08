/**
 * OAuth 2.0 (oidc-provider): the authorization server under /oauth, its sign-in pages, and the
 * in-process verifier of its access tokens (the `tokens` service the credential check reads).
 */
import type { FeatureContext, Installed } from '../../http/feature.ts';
import type { SecurityService } from '../security/service.ts';
import type { FirstPartyClient } from './first-party.ts';
import { startKeySync } from './key-sync.ts';
import { loadOAuthKeys, toKeys } from './keys.ts';
import { createOAuthProvider } from './provider.ts';
import { providerHandle, type ProviderHandle } from './provider-handle.ts';
import { mountOAuth } from './routes.ts';
import { createTokenVerifier } from './token-verifier.ts';
import { moveLegacyOidcEntries } from '../../store/oidc-legacy.ts';

export interface OAuthDeps {
  /** Second factors, one-time sign-in codes and login alerts for the sign-in pages. */
  security: SecurityService;
  /** Clients built into the gateway (the console). */
  firstPartyClients: readonly FirstPartyClient[];
}

export async function installOAuth({ runtime, logger }: FeatureContext, deps: OAuthDeps): Promise<Installed & { provider: ProviderHandle }> {
  // The keys at start: their file is created, or tightened, now rather than at the first sign-in.
  const initial = await loadOAuthKeys(runtime, logger);
  const { store, masterKey } = runtime;
  // Tokens an earlier version stored under their value in clear move to hashed keys now, once per
  // store; should that fail, each still moves on its first use.
  await moveLegacyOidcEntries(store).then(
    (moved) => moved && logger.info('oauth: stored tokens moved to hashed keys', { moved }),
    (error) => logger.warn('oauth: stored tokens not moved to hashed keys at start; they move on use', { error: String(error) }),
  );
  // Instances on one Redis keep to one key set while they run (one without a master key cannot share).
  const sync = store.kind === 'redis' && masterKey ? startKeySync({ store, masterKey, logger, initial, onChange: () => provider.renew() }) : null;
  const fixed = toKeys(initial);
  const provider = providerHandle(() => createOAuthProvider(runtime, logger, sync ? sync.current() : fixed, deps.firstPartyClients));
  return {
    provider,
    services: { tokens: createTokenVerifier(provider, runtime, deps.firstPartyClients.map((client) => client.clientId)) },
    mount: (app) => mountOAuth(app, provider, runtime, deps.security, logger),
    close: async () => sync?.stop(),
  };
}
