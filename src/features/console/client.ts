/**
 * The console as an OAuth client of the gateway's own authorization server: a first-party public
 * client (a browser app cannot keep a secret), so authorization code + PKCE S256 and no client
 * secret. It is built in, not declared in gateway.yaml: its one redirect URI follows the base URL.
 */
import type { Grant } from 'oidc-provider';
import { PLATFORM_SCOPES } from '../../auth/scopes.ts';
import type { FirstPartyClient, GrantContext } from '../oauth/first-party.ts';

export const CONSOLE_CLIENT_ID = 'gateway-console';
export const CONSOLE_PATH = '/console';

/** What the console asks for: every platform scope (its pages use them all), plus who the user is. */
export const CONSOLE_SCOPES = ['openid', 'profile', 'email', ...Object.keys(PLATFORM_SCOPES)];

export const consoleRedirectUri = (baseUrl: string) => `${baseUrl.replace(/\/$/, '')}${CONSOLE_PATH}/callback`;

/** oidc-provider metadata of the console client. */
export function consoleClientMetadata(baseUrl: string): Record<string, unknown> {
  return {
    client_id: CONSOLE_CLIENT_ID,
    client_name: 'Gateway console',
    redirect_uris: [consoleRedirectUri(baseUrl)],
    // No refresh token: the console's session (session.ts) mints short tokens for the grant instead,
    // so no long-lived token ever sits in the browser.
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    scope: CONSOLE_SCOPES.join(' '),
  };
}

/** Authorization parameters the provider keeps for the interaction (see consoleInteractionUrl). */
export const CONSOLE_AUTHORIZE_PARAMS = ['login_method'];

export const SSO_PATH = `${CONSOLE_PATH}/sso`;

/** The interaction URL for a console sign-in that asked for SSO; undefined for everything else. */
export function consoleInteractionUrl(interaction: { uid: string; params: Record<string, unknown> }): string | undefined {
  if (interaction.params.client_id !== CONSOLE_CLIENT_ID || interaction.params.login_method !== 'sso') return undefined;
  return `${SSO_PATH}/${interaction.uid}`;
}

/**
 * The console is part of the gateway, so signing in to it is the consent (no second "allow the
 * gateway to use the gateway" page): its grant always holds the console's scopes.
 */
async function consoleGrant(ctx: GrantContext): Promise<Grant | undefined> {
  const { client, session, provider } = ctx.oidc;
  const accountId = session?.accountId;
  if (!client || !accountId) return undefined;
  const grantId = ctx.oidc.result?.consent?.grantId ?? session!.grantIdFor(client.clientId);
  const grant = (grantId ? await provider.Grant.find(grantId) : undefined) ?? new provider.Grant({ accountId, clientId: client.clientId });
  grant.addOIDCScope(CONSOLE_SCOPES.join(' '));
  grant.addOIDCClaims(['sub', 'email', 'name', 'role', 'group']);
  await grant.save();
  return grant;
}

/** The console as a built-in client of the gateway's OAuth server. */
export const consoleClient: FirstPartyClient = {
  clientId: CONSOLE_CLIENT_ID,
  metadata: consoleClientMetadata,
  authorizeParams: CONSOLE_AUTHORIZE_PARAMS,
  interactionUrl: consoleInteractionUrl,
  loadExistingGrant: consoleGrant,
};
