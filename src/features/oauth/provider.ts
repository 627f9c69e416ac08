/**
 * Builds the OAuth 2.0 authorization server (oidc-provider) at startup: issuer = the gateway's
 * base URL, clients from `oauth.clients[]`, state in the gateway's StateStore, keys in the data dir.
 * Clients, issuer and keys are startup-only: a reload does not change them.
 */
import type Provider from 'oidc-provider';
import type { Client, Configuration } from 'oidc-provider';
import type { OAuthClientConfig } from '../../config/types.ts';
import type { Logger } from '../../pipeline/types.ts';
import type { Runtime } from '../../pipeline/runtime.ts';
import { createOidcAdapterFactory } from '../../store/oidc-adapter.ts';
import type { OAuthKeys } from './keys.ts';
import { sessionGrant, type FirstPartyClient, type GrantContext } from './first-party.ts';
import { SUPPORTED_SCOPES } from '../../auth/scopes.ts';

/** Every OAuth endpoint lives under /oauth (CONTRACT "OAuth"); discovery stays at the issuer root. */
export const OAUTH_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  jwks: '/oauth/jwks',
  userinfo: '/oauth/userinfo',
  revocation: '/oauth/token/revocation',
  introspection: '/oauth/token/introspection',
  end_session: '/oauth/session/end',
  pushed_authorization_request: '/oauth/par',
  registration: '/oauth/register',
  code_verification: '/oauth/device',
  device_authorization: '/oauth/device/auth',
  backchannel_authentication: '/oauth/backchannel',
  challenge: '/oauth/challenge',
  credential: '/oauth/credential',
};

export const interactionPath = (uid: string) => `/oauth/interaction/${uid}`;

const HOUR = 3600;
const DAY = 24 * HOUR;

/** Maps a gateway.yaml client to oidc-provider client metadata. */
export function toClientMetadata(client: OAuthClientConfig, logger: Logger): Record<string, unknown> {
  const unknown = client.scopes.filter((scope) => !SUPPORTED_SCOPES.includes(scope));
  if (unknown.length) logger.warn('oauth client lists unknown scopes; ignored', { client_id: client.client_id, scopes: unknown });
  const scopes = client.scopes.filter((scope) => SUPPORTED_SCOPES.includes(scope));
  return {
    client_id: client.client_id,
    client_secret: client.client_secret,
    redirect_uris: client.redirect_uris,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    // The provider accepts client_secret_post as well for a client registered with _basic.
    token_endpoint_auth_method: 'client_secret_basic',
    // openid is always allowed (it only adds an ID token); the rest is the client's allow-list.
    scope: [...new Set(['openid', ...scopes])].join(' '),
  };
}

/**
 * Creates the provider for the runtime's current config.
 * @example const provider = await createOAuthProvider(gateway.runtime, logger, keys);
 */
export async function createOAuthProvider(runtime: Runtime, logger: Logger, keys: OAuthKeys, firstParty: readonly FirstPartyClient[] = []): Promise<Provider> {
  const { config } = runtime.current();
  const configuration: Configuration = {
    adapter: createOidcAdapterFactory(runtime.store),
    // Built-in first-party clients (the console) beside the ones gateway.yaml declares.
    clients: [...config.oauth.clients.map((client) => toClientMetadata(client, logger)), ...firstParty.map((client) => client.metadata(runtime.baseUrl))],
    scopes: SUPPORTED_SCOPES,
    // role and group let a client (the console) show what the account may do without probing.
    claims: { openid: ['sub'], email: ['email'], profile: ['name', 'role', 'group'] },
    extraParams: firstParty.flatMap((client) => client.authorizeParams ?? []),
    jwks: keys.jwks,
    cookies: { keys: keys.cookieKeys },
    routes: OAUTH_ROUTES,
    interactions: {
      url: (_ctx: unknown, interaction: { uid: string; params: Record<string, unknown> }) =>
        firstParty.map((client) => client.interactionUrl?.(interaction)).find(Boolean) ?? interactionPath(interaction.uid),
    },
    loadExistingGrant: (ctx: GrantContext) => {
      const own = firstParty.find((client) => client.clientId === ctx.oidc.client?.clientId)?.loadExistingGrant;
      return own ? own(ctx) : sessionGrant(ctx);
    },
    features: {
      devInteractions: { enabled: false },
      revocation: { enabled: true },
      resourceIndicators: { enabled: false },
      rpInitiatedLogout: { enabled: false },
    },
    // Confidential clients may use PKCE (S256) but need not; public clients (none) must.
    pkce: { required: (_ctx: unknown, client: Client) => client.clientAuthMethod === 'none' },
    // CONTRACT: the code exchange always returns a refresh token, without offline_access...
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) => client.grantTypeAllowed('refresh_token'),
    // ...which lives on its own, not tied to the browser session of the consent.
    expiresWithSession: async () => false,
    // ...and rotates on every use: the old one is then refused (reuse revokes the grant).
    rotateRefreshToken: () => true,
    findAccount: async (_ctx: unknown, sub: string) => {
      const account = runtime.current().accounts.get(sub);
      if (!account) return undefined;
      return { accountId: sub, claims: () => ({ sub, email: account.email, name: account.name, role: account.role, group: account.group }) };
    },
    ttl: {
      AccessToken: HOUR,
      AuthorizationCode: 600,
      IdToken: HOUR,
      Interaction: HOUR,
      RefreshToken: 14 * DAY,
      Session: 14 * DAY,
      Grant: 14 * DAY,
    },
  };
  // Loaded here, not at start: oidc-provider and its Koa app are only paid for once used.
  const { default: OidcProvider } = await import('oidc-provider');
  const provider = new OidcProvider(runtime.baseUrl, configuration);
  // Behind a TLS-offloading proxy the provider must trust X-Forwarded-Proto/Host.
  provider.proxy = config.server.trusted_proxies.length > 0;
  provider.on('server_error', (_ctx: unknown, error: Error) => logger.error('oauth server error', { error: error.stack ?? String(error) }));
  return provider;
}
