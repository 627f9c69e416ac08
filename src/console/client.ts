/**
 * The console as an OAuth client of the gateway's own authorization server: a first-party public
 * client (a browser app cannot keep a secret), so authorization code + PKCE S256 and no client
 * secret. It is built in, not declared in gateway.yaml: its one redirect URI follows the base URL.
 */
import type Provider from 'oidc-provider';
import type { Grant } from 'oidc-provider';
import { PLATFORM_SCOPES } from '../oauth/scopes.ts';

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
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    scope: CONSOLE_SCOPES.join(' '),
  };
}

/**
 * oidc-provider's `loadExistingGrant`: the console is part of the gateway, so signing in to it is
 * the consent (no second "allow the gateway to use the gateway" page). Other clients keep the grant
 * of their session, as the provider does by default, and so still ask for consent.
 */
/** The part of oidc-provider's request context that loadExistingGrant reads. */
interface GrantContext {
  oidc: {
    client?: { clientId: string };
    session?: { accountId?: string; grantIdFor(clientId: string): string | undefined };
    result?: { consent?: { grantId?: string } };
    provider: Provider;
  };
}

export async function loadGrantForConsole(ctx: GrantContext): Promise<Grant | undefined> {
  const { client, session, provider } = ctx.oidc;
  const accountId = session?.accountId;
  if (!client || !accountId) return undefined;
  const grantId = ctx.oidc.result?.consent?.grantId ?? session!.grantIdFor(client.clientId);
  if (client.clientId !== CONSOLE_CLIENT_ID) return grantId ? provider.Grant.find(grantId) : undefined;
  const grant = (grantId ? await provider.Grant.find(grantId) : undefined) ?? new provider.Grant({ accountId, clientId: client.clientId });
  grant.addOIDCScope(CONSOLE_SCOPES.join(' '));
  grant.addOIDCClaims(['sub', 'email', 'name', 'role', 'group']);
  await grant.save();
  return grant;
}
