/**
 * OAuth clients built into the gateway (the console), beside the ones gateway.yaml declares: each
 * brings its client metadata and, optionally, its own interaction page and consent rule. Boot
 * passes them to the OAuth feature, which so never imports the features that are its clients.
 */
import type Provider from 'oidc-provider';
import type { Grant } from 'oidc-provider';

/** The part of oidc-provider's request context that `loadExistingGrant` reads. */
export interface GrantContext {
  oidc: {
    client?: { clientId: string };
    session?: { accountId?: string; grantIdFor(clientId: string): string | undefined };
    result?: { consent?: { grantId?: string } };
    provider: Provider;
  };
}

export interface FirstPartyClient {
  readonly clientId: string;
  /** oidc-provider client metadata for the gateway's base URL. */
  metadata(baseUrl: string): Record<string, unknown>;
  /** Authorization parameters the provider keeps for this client's interactions. */
  readonly authorizeParams?: readonly string[];
  /** Where an interaction goes instead of the sign-in page; undefined keeps the page. */
  interactionUrl?(interaction: { uid: string; params: Record<string, unknown> }): string | undefined;
  /** The grant of a signed-in account (e.g. signing in is the consent); default: the session's. */
  loadExistingGrant?(ctx: GrantContext): Promise<Grant | undefined>;
}

/** oidc-provider's default: the grant the session holds for the client, so other clients ask for consent. */
export async function sessionGrant(ctx: GrantContext): Promise<Grant | undefined> {
  const { client, session, provider } = ctx.oidc;
  if (!client || !session?.accountId) return undefined;
  const grantId = ctx.oidc.result?.consent?.grantId ?? session.grantIdFor(client.clientId);
  return grantId ? provider.Grant.find(grantId) : undefined;
}
