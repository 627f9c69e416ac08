/**
 * OAuth 2.0 (oidc-provider): the authorization server under /oauth, its sign-in pages, and the
 * in-process verifier of its access tokens (the `tokens` service the credential check reads).
 */
import type Provider from 'oidc-provider';
import type { FeatureContext, Installed } from '../../http/feature.ts';
import type { SecurityService } from '../security/service.ts';
import type { FirstPartyClient } from './first-party.ts';
import { createOAuthProvider } from './provider.ts';
import { mountOAuth } from './routes.ts';
import { createTokenVerifier } from './token-verifier.ts';

export interface OAuthDeps {
  /** Second factors, one-time sign-in codes and login alerts for the sign-in pages. */
  security: SecurityService;
  /** Clients built into the gateway (the console). */
  firstPartyClients: readonly FirstPartyClient[];
}

export async function installOAuth({ runtime, logger }: FeatureContext, deps: OAuthDeps): Promise<Installed & { provider: Provider }> {
  const provider = await createOAuthProvider(runtime, logger, deps.firstPartyClients);
  return {
    provider,
    services: { tokens: createTokenVerifier(provider) },
    mount: (app) => mountOAuth(app, provider, runtime, deps.security, logger),
  };
}
